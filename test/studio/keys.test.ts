/**
 * Studio: the Keys page (create with scopes and limits, the secret shown once with a copy
 * button, rotate with a chosen grace, revoke, each confirmed), and a key that lacks a scope
 * seeing the matching controls disabled with the reason, without any request refused.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, launchChromium, openStudio, screenshot, seriousAccessibilityViolations, signIn, useSignedInStudio } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio keys', () => {
  let server: TestServer;
  let page: Page;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    page = opened.page;
  });

  it('creates a key with scopes and limits, shows its secret once with a copy button, rotates and revokes it', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('writer app');
    await page.getByLabel('refine:', { exact: false }).uncheck();
    await page.getByLabel(/^personas:read:/).check();
    await page.getByLabel(/^labels:write:/).check();
    await page.getByLabel(/^Tokens a day/).fill('500');
    await page.getByRole('button', { name: 'Create key' }).click();

    const dialog = page.getByRole('dialog', { name: 'Key created: copy the secret now' });
    await dialog.waitFor();
    const secret = (await dialog.getByTestId('key-secret').textContent())!;
    expect(secret).toMatch(/^prk_[A-Za-z0-9_-]{43}$/);
    await dialog.getByRole('button', { name: 'Copy secret' }).click();
    await dialog.getByText('Copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await screenshot(page, 'keys-secret-once');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    // Gone from the page: only the prefix stays.
    expect(await page.content()).not.toContain(secret.slice(10));
    const row = page.getByRole('row', { name: /writer app/ });
    expect(await row.textContent()).toContain(`${secret.slice(0, 10)}…`);
    expect(await row.textContent()).toContain('personas:read, labels:write');
    expect(await row.textContent()).toContain('500 tokens a day');
    expect(await (await server.request('/v1/keys/current', { key: secret })).json()).toMatchObject({ scopes: ['personas:read', 'labels:write'] });

    await row.getByRole('button', { name: 'Rotate writer app' }).click();
    const asked = page.getByRole('dialog', { name: 'Rotate writer app?' });
    await asked.getByLabel(/^The old secret keeps working for/).fill('0.5');
    await asked.getByRole('button', { name: 'Rotate writer app' }).click();
    const rotated = page.getByRole('dialog', { name: 'Key rotated: copy the secret now' });
    const newSecret = (await rotated.getByTestId('key-secret').textContent())!;
    expect(newSecret).not.toBe(secret);
    await rotated.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row', { name: /writer app/ }).getByText(/old secret works until/).waitFor();

    await page.getByRole('row', { name: /writer app/ }).getByRole('button', { name: 'Revoke writer app' }).click();
    await page.getByRole('dialog', { name: 'Revoke writer app?' }).getByRole('button', { name: 'Revoke writer app' }).click();
    await page.getByText('writer app is revoked; it stops working within 5 seconds.').waitFor();
    expect(await page.getByRole('row', { name: /writer app/ }).count()).toBe(0);
    await screenshot(page, 'keys', { docs: true });
  });
});

describe.skipIf(!chromiumAvailable)('Persona Studio with a key that lacks scopes', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('disables what the key may not do, with the reason, and sends no request it would refuse', async () => {
    const persona = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Shipped' } })).json();
    await server.request(`/v1/personas/${persona.id}/labels/production`, { method: 'PUT', json: { version: 1 } });
    const key = (await (await server.request('/v1/keys', { method: 'POST', json: { name: 'writer', scopes: ['personas:read', 'labels:write'] } })).json()).secret;
    const studio = await openStudio(browser, server);
    const refused: string[] = [];
    studio.page.on('response', (response) => {
      if (response.status() === 403) refused.push(response.url());
    });
    try {
      const { page } = studio;
      await signIn(page, key);
      await page.goto(`${server.url}/studio/#/personas/${persona.id}`);
      const save = page.getByRole('button', { name: 'Save' });
      await page.getByText('This key lacks the scope “personas:write”. Saving and deleting are off.').waitFor();
      expect(await save.isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Refine' }).isDisabled()).toBe(true);

      await page.getByRole('link', { name: 'History' }).click();
      await page.getByText('production is protected. This key lacks the scope “labels:protected”.').waitFor();
      expect(await page.getByRole('button', { name: 'Move production', exact: true }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Remove production' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Set label' }).isDisabled()).toBe(false);

      await page.getByRole('link', { name: 'Keys' }).click();
      await page.getByText('This key lacks the scope “keys:admin”. Ask someone with a key that has it to create or revoke keys.').waitFor();
      expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
      expect(refused).toEqual([]);
      expect(studio.problems).toEqual([]);
    } finally {
      await studio.close();
    }
  });

  it('a refine-only key signs in without a refused request and is told why no personas are listed', async () => {
    const key = (await (await server.request('/v1/keys', { method: 'POST', json: { name: 'app', scopes: ['refine'] } })).json()).secret;
    const studio = await openStudio(browser, server);
    const refused: string[] = [];
    studio.page.on('response', (response) => {
      if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
    });
    try {
      await signIn(studio.page, key);
      await studio.page.getByText('This key lacks the scope “personas:read”, so personas are not listed.').waitFor();
      expect(refused).toEqual([]);
      expect(studio.problems).toEqual([]);
    } finally {
      await studio.close();
    }
  });
});
