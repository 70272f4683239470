/**
 * Studio: a refused label move said beside its control, Rotate and Revoke confirmed, repeated
 * findings counted, lists newest first after every action, same-named personas told apart, and
 * a read-only key offered no way to create personas.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, focused, launchChromium, openStudio, seriousAccessibilityViolations, signIn, useSignedInStudio } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio verdicts, confirmations and lists', () => {
  let server: TestServer;
  let page: Page;
  const api = async (path: string, init?: RequestInit & { json?: unknown }) => (await server.request(path, init)).json();
  const createPersona = async (name: string, attributes?: unknown): Promise<string> =>
    ((await api('/v1/personas', { method: 'POST', json: { name, ...(attributes ? { attributes } : {}) } })) as { id: string }).id;
  const listed = async (prefix = '') => (await page.locator('.persona-list li a').allTextContents()).filter((name) => name.startsWith(prefix));

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    page = opened.page;
  });

  it('says why a label move was refused (409) beside the control that asked, and moves focus there', async () => {
    const id = await createPersona('Gated');
    await api(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Gated two' } });
    await api(`/v1/personas/${id}/labels/staging`, { method: 'PUT', json: { version: 1 } });
    await api(`/v1/personas/${id}/labels/staging/policy`, { method: 'PUT', json: { minScore: 90 } });
    await page.goto(`${server.url}/studio/#/personas/${id}/history`);
    const row = page.locator('.label-list li', { has: page.getByRole('button', { name: 'Move staging', exact: true }) });
    await row.getByLabel(/staging/).selectOption({ label: 'Version 2' });
    await row.getByRole('button', { name: 'Move staging', exact: true }).click();
    const message = row.getByRole('alert');
    await message.waitFor();
    expect(await message.textContent()).toMatch(/staging/);
    await expect.poll(() => focused(page)).toMatch(/^button\|.*Move staging$/);
    // The refusal is said once, where it happened, not also at the top of the page.
    expect(await page.locator('.history > p[role="alert"]').count()).toBe(0);
  });

  it('asks for a grace period (24 h unless changed) before rotating, and confirms a revoke', async () => {
    await api('/v1/keys', { method: 'POST', json: { name: 'rotated app', scopes: ['refine'] } });
    await page.getByRole('link', { name: 'Keys' }).click();
    const row = page.getByRole('row', { name: /rotated app/ });
    await row.getByRole('button', { name: 'Rotate rotated app' }).click();
    const asked = page.getByRole('dialog', { name: 'Rotate rotated app?' });
    await asked.waitFor();
    expect(await asked.getByLabel(/^The old secret keeps working for/).inputValue()).toBe('24');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await asked.getByRole('button', { name: 'Rotate rotated app' }).click();
    const before = Date.now();
    await page.getByRole('dialog', { name: 'Key rotated: copy the secret now' }).getByRole('button', { name: 'Done' }).click();
    const until = Date.parse((await row.locator('time').getAttribute('datetime'))!);
    expect(Math.abs(until - before - 24 * 3600_000)).toBeLessThan(60_000);

    await row.getByRole('button', { name: 'Revoke rotated app' }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke rotated app?' });
    await revoke.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await row.count()).toBe(1);
    await row.getByRole('button', { name: 'Revoke rotated app' }).click();
    await revoke.getByRole('button', { name: 'Revoke rotated app' }).click();
    await page.getByText('rotated app is revoked; it stops working within 5 seconds.').waitFor();
    expect(await row.count()).toBe(0);
  });

  it('counts a repeated finding in the run results instead of repeating it', async () => {
    const id = await createPersona('Repeated', { avoid: ['synergy'] });
    await api(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ name: 'twice', content: 'Synergy, then more synergy.' }] } });
    const run = (await api(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'rules' } })) as { id: string };
    await expect.poll(async () => ((await api(`/v1/personas/${id}/evals/${run.id}`)) as { status: string }).status).toBe('completed');
    await page.goto(`${server.url}/studio/#/personas/${id}/evals`);
    await page.getByRole('button', { name: 'Show its results' }).click();
    const findings = page.locator('table.results tbody tr td').nth(2);
    await expect.poll(() => findings.textContent()).toBe('Words to avoid (required) ×2');
  });

  it("keeps the runs newest first when an older run's results are shown", async () => {
    const id = await createPersona('Run twice');
    await api(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'Hello.' }] } });
    for (const version of [1, 2]) {
      if (version === 2) await api(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Run twice, edited' } });
      const run = (await api(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'rules', version } })) as { id: string };
      await expect.poll(async () => ((await api(`/v1/personas/${id}/evals/${run.id}`)) as { status: string }).status).toBe('completed');
    }
    await page.goto(`${server.url}/studio/#/personas/${id}/evals`);
    const runs = () => page.locator('ul.runs > li').evaluateAll((items) => items.map((item) => item.textContent!.slice(0, 'Version 1'.length)));
    await expect.poll(runs).toEqual(['Version 2', 'Version 1']);
    await page.locator('ul.runs > li').nth(1).getByRole('button', { name: 'Show its results' }).click();
    await page.getByRole('region', { name: 'Run of version 1 with rules: completed' }).waitFor();
    expect(await runs()).toEqual(['Version 2', 'Version 1']);
  });

  it('keeps the persona list and the keys newest first after creating, deleting and restoring', async () => {
    const older = await createPersona('Ordered older');
    await createPersona('Ordered newer');
    await page.reload();
    await page.getByRole('heading', { name: 'Your personas' }).waitFor();
    await expect.poll(() => listed('Ordered')).toEqual(['Ordered newer', 'Ordered older']);

    await page.getByRole('link', { name: 'New persona' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Ordered newest');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/Created “Ordered newest”/).waitFor();
    await expect.poll(() => listed('Ordered')).toEqual(['Ordered newest', 'Ordered newer', 'Ordered older']);

    await page.getByRole('link', { name: 'Ordered newer' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete persona' }).click();
    await expect.poll(() => listed('Ordered')).toEqual(['Ordered newest', 'Ordered older']);

    await api(`/v1/personas/${older}`, { method: 'PATCH', json: { name: 'Renamed' } });
    await page.goto(`${server.url}/studio/#/personas/${older}/history`);
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByText(/^Restored version 1/).waitFor();
    await expect.poll(() => listed('Ordered')).toEqual(['Ordered newest', 'Ordered older']);

    await api('/v1/keys', { method: 'POST', json: { name: 'first key', scopes: ['refine'] } });
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Name').fill('second key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    const names = () => page.locator('.keys-table tbody tr td:first-child').allTextContents();
    await expect.poll(async () => (await names()).filter((name) => name.endsWith(' key'))).toEqual(['second key', 'first key']);
  });

  it('tells same-named personas apart in the list and in Compare', async () => {
    const ids = [await createPersona('Twin'), await createPersona('Twin')];
    await page.reload();
    await page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Compare' }).click();
    const options = await page.getByLabel('First persona').locator('option').allTextContents();
    const twins = options.filter((option) => option.startsWith('Twin'));
    expect(twins).toHaveLength(2);
    expect(new Set(twins).size).toBe(2);
    for (const id of ids) expect(twins.some((twin) => twin.endsWith(id.slice(-6)))).toBe(true);
    expect(new Set(await listed('Twin')).size).toBe(2);
    // And on each one's own pages, whose headings would otherwise read the same.
    const suffix = ids[0]!.slice(-6);
    await page.goto(`${server.url}/studio/#/personas/${ids[0]}`);
    await page.getByRole('heading', { name: `Twin · ${suffix}`, exact: true }).waitFor();
    await page.goto(`${server.url}/studio/#/personas/${ids[0]}/history`);
    await page.getByRole('heading', { name: `History of Twin · ${suffix}`, exact: true }).waitFor();
    await page.goto(`${server.url}/studio/#/personas/${ids[0]}/evals`);
    await page.getByRole('heading', { name: `Evaluations of Twin · ${suffix}`, exact: true }).waitFor();
  });
});

describe.skipIf(!chromiumAvailable)('Persona Studio with a key that may only read personas', () => {
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

  it('offers neither New persona nor Import', async () => {
    await server.request('/v1/personas', { method: 'POST', json: { name: 'Readable' } });
    const key = (await (await server.request('/v1/keys', { method: 'POST', json: { name: 'reader', scopes: ['personas:read'] } })).json()).secret;
    const studio = await openStudio(browser, server);
    try {
      const { page } = studio;
      await signIn(page, key);
      await page.getByRole('link', { name: 'Readable' }).waitFor();
      // Written off once the key's scopes are known, which the list's Export all waits for too.
      await expect.poll(() => page.getByRole('link', { name: /new persona|new one/i }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /Import/ }).count()).toBe(0);
      expect(studio.problems).toEqual([]);
    } finally {
      await studio.close();
    }
  });
});
