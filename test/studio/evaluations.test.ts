/** Studio evaluations: samples, a run followed live, results, two runs compared, label gates; through the real server with the rules provider. */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, screenshot, useSignedInStudio } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio evaluations', () => {
  let server: TestServer;
  let page: Page;

  const api = async (path: string, init?: RequestInit & { json?: unknown }) => (await server.request(path, init)).json();

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    page = opened.page;
  });

  it('edits samples, runs a version live, compares two runs with the regression marked, and sets a label gate', async () => {
    const { id } = (await api('/v1/personas', { method: 'POST', json: { name: 'Evaluated', attributes: { vocabulary: { customers: 'members' }, avoid: ['synergy'] } } })) as { id: string };
    await page.goto(`${server.url}/studio/#/personas/${id}`);
    await page.getByRole('link', { name: 'Evaluations' }).click();
    await page.getByRole('heading', { name: 'Evaluations of Evaluated' }).waitFor();

    await page.getByRole('button', { name: 'Add a sample' }).click();
    await page.getByRole('button', { name: 'Add a sample' }).click();
    await page.getByLabel('Name, sample 1').fill('welcome');
    await page.getByLabel('Text, sample 1').fill('Dear customers, welcome.');
    await page.getByLabel('Must contain, sample 1').fill('members');
    await page.getByLabel('Name, sample 2').fill('synergy');
    await page.getByLabel('Text, sample 2').fill('Pure synergy for our customers.');
    await page.getByRole('button', { name: 'Save samples' }).click();
    await page.getByText('Saved 2 samples.').waitFor();
    const { samples } = (await api(`/v1/personas/${id}/samples`)) as { samples: { id: string; name: string; content: string; expect?: unknown }[] };
    expect(samples.map(({ name, content, expect: wanted }) => ({ name, content, expect: wanted }))).toEqual([
      { name: 'welcome', content: 'Dear customers, welcome.', expect: { contains: ['members'] } },
      { name: 'synergy', content: 'Pure synergy for our customers.', expect: undefined },
    ]);

    // Version 1, with the offline rules provider (no key): followed live to its end.
    await page.getByLabel('Version', { exact: true }).selectOption({ label: 'Version 1' });
    await page.getByRole('button', { name: 'Start the run' }).click();
    const first = page.getByRole('region', { name: 'Run of version 1 with rules: completed' });
    await first.waitFor();
    expect(await first.getByRole('progressbar', { name: 'Samples done' }).getAttribute('value')).toBe('2');
    expect(await first.locator('.run-summary').textContent()).toBe('Mean score 95 · pass rate 50 %');
    expect(await first.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)))).toEqual([
      ['welcome', '100', 'yes', '–', 'Dear members, welcome.'],
      ['synergy', '90', 'no', 'Words to avoid (required)', 'Pure synergy for our members.'],
    ]);

    // Version 2 forgets "members", which the first sample expects: a regression.
    await api(`/v1/personas/${id}`, { method: 'PATCH', json: { attributes: { avoid: ['synergy'] } } });
    await page.reload();
    await page.getByRole('heading', { name: 'Evaluations of Evaluated' }).waitFor();
    await page.getByLabel('Version', { exact: true }).selectOption({ label: 'Version 2' });
    await page.getByRole('button', { name: 'Start the run' }).click();
    await page.getByRole('region', { name: 'Run of version 2 with rules: completed' }).waitFor();
    const runs = (await api(`/v1/personas/${id}/evals`)) as { id: string; version: number }[];
    await page.getByLabel('Base run (before)').selectOption(runs.find((run) => run.version === 1)!.id);
    await page.getByLabel('Head run (after)').selectOption(runs.find((run) => run.version === 2)!.id);
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const compared = page.getByRole('region', { name: '1 regression' });
    await compared.waitFor();
    expect(await compared.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [row.className, ...[...row.children].map((cell) => cell.textContent)]))).toEqual([
      ['regression', 'welcome regression', '100 (passed)', '100 (did not pass)', '0'],
      ['', 'synergy', '90 (did not pass)', '90 (did not pass)', '0'],
    ]);
    await page.evaluate(`document.getElementById('compare-runs-heading').scrollIntoView()`);
    await screenshot(page, 'evaluations', { docs: true });

    // The production gate, then what the service does with it.
    await page.getByLabel('Minimum score, production').fill('96');
    await page.getByLabel('Minimum pass rate (0–1), production').fill('0.5');
    await page.getByRole('button', { name: 'Save the gate of production' }).click();
    await page.getByText('Saved: moving “production” needs a completed run of the target version with score ≥ 96, pass rate ≥ 0.5.').waitFor();
    const refused = await server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', json: { version: 1 } });
    expect(refused.status).toBe(409);
  });

  it('a sample that fails only its expect says which terms, and the summary counts them', async () => {
    const { id } = (await api('/v1/personas', { method: 'POST', json: { name: 'Expecting', attributes: { avoid: ['synergy'] } } })) as { id: string };
    const samples = [
      { name: 'welcome', content: 'Dear customers, welcome.', expect: { contains: ['members', 'welcome'], notContains: ['customers'] } },
      { name: 'hello', content: 'Hello there.', expect: { contains: ['Hello'] } },
    ];
    await api(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples } });
    await page.goto(`${server.url}/studio/#/personas/${id}/evals`);
    await page.getByRole('heading', { name: 'Evaluations of Expecting' }).waitFor();
    await page.getByRole('button', { name: 'Start the run' }).click();
    const run = page.getByRole('region', { name: 'Run of version 1 with rules: completed' });
    await run.waitFor();
    expect(await run.locator('.run-summary').textContent()).toBe('Mean score 100 · pass rate 50 % · 2 expectations not met');
    expect(await run.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)))).toEqual([
      ['welcome', '100', 'no', 'Expect not met: missing “members”, contains “customers”', 'Dear customers, welcome.'],
      ['hello', '100', 'yes', '–', 'Hello there.'],
    ]);
    await run.scrollIntoViewIfNeeded();
    await screenshot(page, 'evaluations-expectations', { docs: true });
  });
});
