/**
 * The history page asks each label's policy when the key has labels:write but not
 * labels:protected. A policy it cannot read counts as protected (fail closed), production included.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, launchChromium, openStudio, signIn } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio history when label policies cannot be read', () => {
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

  it('every label whose policy lookup failed is treated as protected', async () => {
    const persona = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Shipped' } })).json();
    for (const label of ['production', 'staging']) await server.request(`/v1/personas/${persona.id}/labels/${label}`, { method: 'PUT', json: { version: 1 } });
    const key = (await (await server.request('/v1/keys', { method: 'POST', json: { name: 'writer', scopes: ['personas:read', 'labels:write'] } })).json()).secret;
    const studio = await openStudio(browser, server);
    try {
      const { page } = studio;
      let lookups = 0;
      await page.route('**/labels/*/policy', (route) => {
        lookups++;
        return route.fulfill({ status: 503, headers: { 'content-type': 'application/json' }, body: '{"error":503,"message":"unavailable"}' });
      });
      await signIn(page, key);
      await page.goto(`${server.url}/studio/#/personas/${persona.id}/history`);
      // Shown only once the lookups have failed (staging starts out unprotected).
      await page.getByText('staging is protected. This key lacks the scope “labels:protected”.').waitFor();
      expect(lookups).toBeGreaterThanOrEqual(2);
      expect(await page.getByRole('button', { name: 'Remove staging' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Remove production' }).isDisabled()).toBe(true);
      await page.getByText('production is protected. This key lacks the scope “labels:protected”.').waitFor();
      expect(studio.problems).toEqual([]);
    } finally {
      await studio.close();
    }
  });
});
