/** Studio sign-in: the service API key, kept in sessionStorage only. */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, focused, launchChromium, openStudio, screenshot, SESSION_KEY_NAME, signIn, type StudioPage, tabTo } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio sign-in', () => {
  let server: TestServer;
  let browser: Browser;
  let studio: StudioPage;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  afterEach(async () => {
    expect(studio.problems).toEqual([]);
    await studio.close();
  });

  it('says plainly that a wrong key was not accepted, and stores nothing', async () => {
    studio = await openStudio(browser, server);
    const { page } = studio;
    await screenshot(page, 'sign-in');
    await page.getByLabel('API key').fill('prk_not_a_real_key_000000000000000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/That API key was not accepted/);
    expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(`sessionStorage.getItem('${SESSION_KEY_NAME}')`)).toBeNull();
  });

  it('signs in with the right key, keeps it in sessionStorage only, and signs out', async () => {
    studio = await openStudio(browser, server);
    const { page } = studio;
    await signIn(page, server.key);
    expect(await page.evaluate(`sessionStorage.getItem('${SESSION_KEY_NAME}')`)).toBe(server.key);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await page.evaluate('document.cookie')).toBe('');

    await page.reload();
    await page.getByRole('heading', { name: 'Your personas' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(`sessionStorage.getItem('${SESSION_KEY_NAME}')`)).toBeNull();
  });

  it('signs in with the keyboard alone: Tab to the field, type, Enter', async () => {
    studio = await openStudio(browser, server);
    const { page } = studio;
    await tabTo(page, /^input\|api-key\|/);
    await page.keyboard.type(server.key);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your personas' }).waitFor();
    // Focus moved to the new view's heading, so the next Tab continues from there.
    expect(await focused(page)).toMatch(/^h2\|home-heading\|/);
  });

  it('ends the session with an explanation when the key stops working', async () => {
    const revocable = await server.createAccount(`revoked-${Date.now()}`);
    studio = await openStudio(browser, server);
    const { page } = studio;
    await signIn(page, revocable);
    // As if the key were revoked: the studio's next call gets a 401.
    await page.evaluate(`sessionStorage.setItem('${SESSION_KEY_NAME}', 'prk_revoked_000000000000000000000000000000')`);
    await page.reload();
    await page.getByText('Your API key is no longer accepted. Sign in again.').waitFor();
    await page.getByLabel('API key').waitFor();
  });
});
