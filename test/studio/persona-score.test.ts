/** Studio and the persona score: the preview shows the score and its parts; the editor sets minScore and each rule's severity. */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../src/rules/types.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, screenshot, useSignedInStudio } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio: the persona score', () => {
  let server: TestServer;
  let page: Page;

  const createViaApi = async (name: string, attributes: Record<string, unknown>) =>
    ((await (await server.request('/v1/personas', { method: 'POST', json: { name, attributes } })).json()) as { id: string }).id;
  const attributesOf = async (id: string) => ((await (await server.request(`/v1/personas/${id}`)).json()) as { attributes: Record<string, unknown> }).attributes;
  const openPersona = async (id: string, name: string) => {
    await page.goto(`${server.url}/studio/#/personas/${id}`);
    await page.getByRole('heading', { name, level: 2 }).waitFor();
  };
  const save = async (name: string) => {
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(`Saved “${name}”`).waitFor();
  };

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    page = opened.page;
  });

  it('the preview shows the score, why it does not pass, its three parts and each finding’s severity', async () => {
    const id = await createViaApi('Scored voice', { avoid: ['synergy'], maxWords: 6, enforce: { maxWords: 'recommended' }, minScore: 90 });
    await openPersona(id, 'Scored voice');
    await page.getByLabel('Sample text').fill('We love synergy and will bring it to every team.');
    await page.getByRole('button', { name: 'Refine' }).click();
    // rules 100 − 10 (avoid, required) − 4 (maxWords, recommended); the sample has no facts to keep, so the score is the rules part.
    const score = page.getByRole('region', { name: 'Persona score 86 of 100' });
    await score.waitFor();
    expect(await score.locator('p').textContent()).toBe('Does not pass: 1 required finding and under the persona’s minimum score of 90.');
    const parts = score.locator('.sub-scores > div');
    expect(await parts.evaluateAll((items) => items.map((item) => [item.getAttribute('data-part'), item.textContent]))).toEqual([
      ['rules', 'Rules 86'],
      ['facts', 'Facts 100'],
      ['voice', 'Voicenot judged'],
    ]);
    expect(await score.getByRole('meter', { name: 'Rules 86 of 100' }).getAttribute('value')).toBe('86');
    const report = page.getByRole('region', { name: 'Rules still broken: 2 violations' });
    expect(await report.locator(':scope > ul > li').evaluateAll((items) => items.map((item) => [item.getAttribute('data-rule'), item.querySelector('.severity')?.textContent]))).toEqual([
      ['maxWords', 'recommended'],
      ['avoid', 'required'],
    ]);
    await page.evaluate(`document.querySelector('.persona-score').scrollIntoView()`);
    await screenshot(page, 'preview-score', { docs: true });

    // Without required findings and at or above minScore, it passes.
    await page.getByLabel('Sample text').fill('Hello there, friends.');
    await page.getByRole('button', { name: 'Refine' }).click();
    const clean = page.getByRole('region', { name: 'Persona score 100 of 100' });
    await clean.waitFor();
    expect(await clean.locator('p').textContent()).toBe('Passes the persona’s check.');
  });

  it('the editor sets minScore (0–100, as the catalogue says) and each rule off, required or recommended', async () => {
    const id = await createViaApi('Severities', { tone: 'calm', avoid: ['synergy'], enforce: { preserve: false } });
    await openPersona(id, 'Severities');
    // Every rule has a choice; what enforce does not name is required (the default).
    expect(await page.getByLabel('Words to avoid avoid').inputValue()).toBe('required');
    expect(await page.getByLabel('Numbers, links, code and placeholders to keep preserve').inputValue()).toBe('off');
    expect(await page.locator('select[id^="enforce-"]').count()).toBe(RULE_IDS.length);
    await page.getByText('Kept as they are').waitFor({ state: 'detached' });

    const minScore = page.getByLabel('Minimum score');
    await minScore.fill('101');
    await page.getByText('Enter a whole number from 0 to 100, or leave it empty.').waitFor();
    await minScore.fill('0');
    await page.getByText('Enter a whole number from 0 to 100, or leave it empty.').waitFor({ state: 'detached' });
    await page.getByLabel('Words to avoid avoid').selectOption('recommended');
    await page.getByLabel('Most words maxWords').selectOption('off');
    await page.getByLabel('Numbers, links, code and placeholders to keep preserve').selectOption('required');
    await page.evaluate(`document.querySelector('select#enforce-avoid').scrollIntoView({ block: 'center' })`);
    await screenshot(page, 'editor-rules', { docs: true });
    await save('Severities');
    // Keys kept in their order; a rule set back to required (the default) leaves enforce.
    expect(JSON.stringify(await attributesOf(id))).toBe(JSON.stringify({ tone: 'calm', avoid: ['synergy'], enforce: { avoid: 'recommended', maxWords: false }, minScore: 0 }));

    // Every rule back to required: no enforce left at all.
    await page.getByLabel('Words to avoid avoid').selectOption('required');
    await page.getByLabel('Most words maxWords').selectOption('required');
    await save('Severities');
    expect(await attributesOf(id)).toEqual({ tone: 'calm', avoid: ['synergy'], minScore: 0 });
  });

  it('enforce: false shows every rule off; turning one on keeps the others off', async () => {
    const id = await createViaApi('All off', { enforce: false });
    await openPersona(id, 'All off');
    expect(await page.locator('select[id^="enforce-"]').evaluateAll((selects) => selects.map((select) => (select as unknown as { value: string }).value))).toEqual(Array(RULE_IDS.length).fill('off'));
    await page.getByLabel('Emoji emoji').selectOption('recommended');
    await save('All off');
    expect(await attributesOf(id)).toEqual({
      enforce: { vocabulary: false, casing: false, avoid: false, emoji: 'recommended', signOff: false, maxWords: false, maxSentences: false, preserve: false, terms: false },
    });
  });
});
