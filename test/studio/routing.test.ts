/**
 * The studio's hash routes: a view follows the address bar whenever it changes, including in
 * the moment between a view's first render and its effects (a link followed right after sign-in).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, launchChromium, openStudio, SESSION_KEY_NAME } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio routes', () => {
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

  it('shows the view of an address that changed before the workspace listened for changes', async () => {
    const studio = await openStudio(browser, server);
    try {
      const { page } = studio;
      // Signed in from the session, and the hash moved by a mutation observer: its callback runs as a
      // microtask right after the workspace's first render is in the DOM, before Preact runs effects.
      await page.addInitScript(`
        sessionStorage.setItem(${JSON.stringify(SESSION_KEY_NAME)}, ${JSON.stringify(server.key)});
        new MutationObserver((_records, observer) => {
          if (![...document.querySelectorAll('h1, h2')].some((heading) => heading.textContent === 'Your personas')) return;
          observer.disconnect();
          location.hash = '#/keys';
        }).observe(document, { childList: true, subtree: true, characterData: true });
      `);
      await page.reload();
      await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
      expect(new URL(page.url()).hash).toBe('#/keys');
      expect(studio.problems).toEqual([]);
    } finally {
      await studio.close();
    }
  });
});
