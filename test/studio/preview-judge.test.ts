/** Studio preview, judged: the voice rated with the preview's own provider, key and model, each rating with its reason, streamed or not. */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { chromiumAvailable, screenshot, useSignedInStudio } from './studio-browser.js';

const PROVIDER_KEY = 'FAKE-studio-judge-key-0002';
const MODEL = 'gpt-preview-judge';
const REPLY = 'Hi there! Your order ships today, and we will write again when it is on its way.';
/** What the fake judge answers: the schema allows exactly the persona's descriptive attributes, tone then audience. */
const RATINGS = {
  ratings: [
    { attribute: 'tone', rating: 5, reason: 'Warm and direct from the first word.' },
    { attribute: 'audience', rating: 3, reason: 'Plain enough, though “on its way” assumes they know the carrier.' },
  ],
};

describe.skipIf(!chromiumAvailable)('Persona Studio preview, judged', () => {
  let f: RefineFixture;
  let page: Page;
  let personaId: string;

  const refine = async (options: { stream?: boolean; judge?: boolean; provider?: string } = {}) => {
    const { stream = false, judge = true, provider = 'openai' } = options;
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByLabel('Sample text').fill('Your order ships today.');
    await page.getByLabel('Provider', { exact: true }).selectOption(provider);
    if (provider !== 'rules') {
      await page.getByLabel('Model (optional)').fill(MODEL);
      await page.getByLabel('Provider API key').fill(PROVIDER_KEY);
    }
    if (stream) await page.getByLabel('Stream the answer as it is written (no repair call)').check();
    if (judge) await page.getByLabel('Judge the voice').check();
    await page.getByRole('button', { name: 'Refine' }).click();
    await page.getByRole('figure', { name: 'Refined by Warm support' }).waitFor();
  };
  const parts = () =>
    page.locator('.persona-score .sub-scores > div').evaluateAll((items) => items.map((item) => [item.getAttribute('data-part'), item.textContent]));
  const ratingRows = () =>
    page
      .getByRole('table', { name: `The voice, rated by openai/${MODEL}` })
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));

  beforeAll(async () => {
    f = await startRefineFixture({ env: { PROVIDER_TIMEOUT_MS: '10000' } });
    const created = await f.server.request('/v1/personas', {
      method: 'POST',
      json: { name: 'Warm support', attributes: { tone: 'warm, direct', audience: 'first-time customers', avoid: ['synergy'], minScore: 90 } },
    });
    personaId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.fake.reset());
  useSignedInStudio(() => f.server, (opened) => {
    page = opened.page;
  });

  it('shows the voice part and each rating with its reason; the judge is the preview’s provider, key and model', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY, structured: RATINGS });
    await refine();
    // Ratings 5 and 3: voice 75; rules 100 and voice 75 weighted 40:40 (no facts in the sample) → 88, under minScore 90.
    const score = page.getByRole('region', { name: 'Persona score 88 of 100' });
    await score.waitFor();
    expect(await score.locator('p').first().textContent()).toBe('Does not pass: under the persona’s minimum score of 90.');
    expect(await parts()).toEqual([
      ['rules', 'Rules 100'],
      ['facts', 'Facts 100'],
      ['voice', 'Voice 75'],
    ]);
    expect(await score.getByRole('meter', { name: 'Voice 75 of 100' }).getAttribute('value')).toBe('75');
    expect(await ratingRows()).toEqual([
      ['tone', '5 of 5', 'Warm and direct from the first word.'],
      ['audience', '3 of 5', 'Plain enough, though “on its way” assumes they know the carrier.'],
    ]);
    // The refine, then the check's judge: one structured call with the same key and model.
    expect(f.fake.requests.map((request) => [request.stream, request.model, request.headers.authorization])).toEqual([
      [false, MODEL, `Bearer ${PROVIDER_KEY}`],
      [false, MODEL, `Bearer ${PROVIDER_KEY}`],
    ]);
    expect(JSON.stringify(f.fake.requests[1]!.body)).toContain('"json_schema"');
    // The refine's cost line counts its own call; the judge's is its own line, from the check's X-Usage.
    expect(await page.locator('.spend:not(.judge-spend)').textContent()).toMatch(/ · \d+ input \+ \d+ output tokens, 1 provider call · /);
    expect(await page.locator('.judge-spend').textContent()).toMatch(/^The judge: \d+ input \+ \d+ output tokens, 1 provider call\.$/);
    expect(await page.evaluate('document.body.innerText')).not.toContain(PROVIDER_KEY);
    await page.evaluate(`document.querySelector('.persona-score').scrollIntoView()`);
    await screenshot(page, 'preview-judge', { docs: true });
  });

  it('judges a streamed answer the same way, once it is whole', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY, structured: RATINGS, pieceChars: 6 });
    await refine({ stream: true });
    await page.getByRole('region', { name: 'Persona score 88 of 100' }).waitFor();
    expect(await ratingRows()).toEqual([
      ['tone', '5 of 5', 'Warm and direct from the first word.'],
      ['audience', '3 of 5', 'Plain enough, though “on its way” assumes they know the carrier.'],
    ]);
    expect(f.fake.requests.map((request) => request.stream)).toEqual([true, false]);
  });

  it('a judge that fails says why, and the score leaves the voice out', async () => {
    f.fake.enqueue({ mode: 'ok', reply: REPLY }, { mode: 'ok', structured: 'no' }, { mode: 'ok', structured: 'still no' });
    await refine();
    const score = page.getByRole('region', { name: 'Persona score 100 of 100' });
    await score.waitFor();
    expect(await score.getByRole('alert').textContent()).toBe(
      'The judge could not rate the voice, so the score leaves it out: provider "openai" gave no usable ratings in 2 answers: the last one is not JSON',
    );
    expect(await parts()).toEqual([
      ['rules', 'Rules 100'],
      ['facts', 'Facts 100'],
      ['voice', 'Voicejudge failed'],
    ]);
    expect(await page.locator('.voice-ratings').count()).toBe(0);
    // Asked again once: both answers were paid for.
    expect(await page.locator('.judge-spend').textContent()).toMatch(/^The judge: \d+ input \+ \d+ output tokens, 2 provider calls\.$/);
    expect(f.fake.requestCount).toBe(3);
  });

  it('without the option nothing is judged; with Rules only the option is off, saying why', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    await refine({ judge: false });
    await page.getByRole('region', { name: 'Persona score 100 of 100' }).waitFor();
    expect((await parts())[2]).toEqual(['voice', 'Voicenot judged']);
    expect(await page.locator('.judge-spend').count()).toBe(0);
    expect(f.fake.requestCount).toBe(1);

    await page.getByLabel('Judge the voice').check();
    await page.getByLabel('Provider', { exact: true }).selectOption('rules');
    const option = page.getByLabel('Judge the voice');
    expect(await option.isDisabled()).toBe(true);
    expect(await option.isChecked()).toBe(false);
    expect(await page.locator('#preview-judge-hint').textContent()).toBe('Rules only has no model to judge with: choose a provider first.');
    await page.getByRole('button', { name: 'Refine' }).click();
    // Rules only leaves this sample as it is: the figure shows the new answer, not the last one.
    await page.getByRole('figure', { name: 'Refined by Warm support' }).locator('.diff-text').filter({ hasText: /^Your order ships today\.$/ }).waitFor();
    expect((await parts())[2]).toEqual(['voice', 'Voicenot judged']);
    expect(f.fake.requestCount).toBe(1);
  });
});
