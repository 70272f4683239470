/** Studio preview and compare: refines through the real server against the fake providers. */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { chromiumAvailable, useSignedInStudio, screenshot, SESSION_KEY_NAME, type StudioPage } from './studio-browser.js';

const PROVIDER_KEY = 'sk-studio-test-Zq81LmX0vB';
const SAMPLE = 'Hello there, we will utilize synergy to fix your order.';

describe.skipIf(!chromiumAvailable)('Persona Studio preview and compare', () => {
  let f: RefineFixture;
  let studio: StudioPage;
  let page: Page;
  let personaId: string;

  const createViaApi = async (name: string, attributes: Record<string, unknown>) =>
    ((await (await f.server.request('/v1/personas', { method: 'POST', json: { name, attributes } })).json()) as { id: string }).id;
  /** `Rules only` is the default; these go through OpenAI (the fake) with a key. */
  const chooseOpenAi = (key = PROVIDER_KEY) => page.getByLabel('Provider', { exact: true }).selectOption('openai').then(() => page.getByLabel('Provider API key').fill(key));
  const refine = async (key = PROVIDER_KEY) => {
    await page.getByLabel('Sample text').fill(SAMPLE);
    await chooseOpenAi(key);
    await page.getByRole('button', { name: 'Refine' }).click();
  };

  beforeAll(async () => {
    f = await startRefineFixture();
    personaId = await createViaApi('Friendly support', { tone: 'warm', vocabulary: { utilize: 'use' } });
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.fake.reset());
  useSignedInStudio(() => f.server, (opened) => {
    studio = opened;
    page = opened.page;
  });

  it('refines sample text and shows the result beside the original, with a word diff and timing', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hi there, we will use teamwork to fix your order.' });
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await refine();
    const refined = page.getByRole('figure', { name: 'Refined by Friendly support' });
    await refined.waitFor();
    const original = page.getByRole('figure', { name: 'Original' });
    expect(await original.locator('del').allTextContents()).toEqual(['Hello', 'utilize synergy']);
    expect(await refined.locator('ins').allTextContents()).toEqual(['Hi', 'use teamwork']);
    expect(await refined.locator('.diff-text').textContent()).toBe('Hi there, we will use teamwork to fix your order.');
    expect(await page.locator('.timing').textContent()).toMatch(/^Took [\d.]+ m?s \(service [\d.]+ m?s, of which the provider [\d.]+ m?s, overhead [\d.]+ m?s\)\.$/);
    const [sent] = f.fake.requests;
    const input = Math.ceil(sent!.userText.length / 4);
    // The studio fetches with cache: 'no-store', which browsers send as Cache-Control: no-cache: a fresh answer.
    expect(await page.locator('.spend').textContent()).toBe(`Answered by openai/${sent!.model} · ${input} input + 13 output tokens, 1 provider call · not from the cache.`);
    await page.evaluate(`document.getElementById('preview-heading').scrollIntoView()`);
    await screenshot(page, 'preview', { docs: true });

    // The provider key went to the provider (through the service) and nowhere else in the browser.
    const [request] = await f.fake.waitForRequests(1);
    expect(request!.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    const stored = await page.evaluate<string>('JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage), document.cookie, location.href])');
    expect(stored).not.toContain(PROVIDER_KEY);
    expect(stored).toContain(SESSION_KEY_NAME);
  });

  it('offers exactly the providers GET /v1/providers lists, operator-declared ones included, without a failing request', async () => {
    const calls: string[] = [];
    const failures: string[] = [];
    page.on('request', (request) => calls.push(`${request.method()} ${new URL(request.url()).pathname}`));
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    const listing = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/providers');
    await page.reload();
    expect((await listing).status()).toBe(200);
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    const provider = page.getByLabel('Provider', { exact: true });
    await provider.locator('option[value="rules"]').waitFor({ state: 'attached' });
    expect(calls).toContain('GET /v1/providers');
    expect(calls).not.toContain('POST /v1/refine');
    expect(failures).toEqual([]);
    const listed = ((await (await f.server.request('/v1/providers')).json()) as { name: string }[]).map((entry) => entry.name);
    expect(await provider.locator('option').allTextContents()).toEqual([...listed, 'Other…']);
    expect(listed).toContain('localllm');

    await provider.selectOption('localllm');
    await page.getByText('Leave empty for localllm’s default model, llama3.2.').waitFor();
    await provider.selectOption('rules');
    await page.getByText('This provider needs no key.').waitFor();
    await page.getByText('This provider uses no model.').waitFor();
  });

  it('marks the protected items of the sample and flags the ones the answer lost', async () => {
    const template = 'Hi {{first_name}}, your order 48213 ships on {{ship_date}}. Utilize https://acme.com/t/48213 to track it.';
    // The answer and the repair call both drop the ship date placeholder.
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hi {{first_name}}, order 48213 ships soon. Use https://acme.com/t/48213 to track it.' });
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByLabel('Sample text').fill(template);
    await chooseOpenAi();
    await page.getByRole('button', { name: 'Refine' }).click();
    const original = page.getByRole('figure', { name: 'Original' });
    await original.waitFor();
    expect(await original.locator('mark').allTextContents()).toEqual(['{{first_name}}', '48213', '{{ship_date}}', 'https://acme.com/t/48213']);
    expect(await original.locator('mark.lost').allTextContents()).toEqual(['{{ship_date}}']);
    expect(await original.locator('mark.lost').getAttribute('title')).toBe('Protected, and missing from the answer');
    // The marks leave the diff intact: the removed words are still struck through, the text unchanged.
    expect(await original.locator('.diff-text').textContent()).toBe(template);
    expect(await original.locator('del').allTextContents()).toContain('on {{ship_date}}');
    const summary = page.locator('.protected-summary');
    expect(await summary.locator('p').textContent()).toBe(
      'Marked in the original: 4 protected items (numbers, links, e-mail addresses, code, template placeholders) that every refine must keep. The answer lost 1:',
    );
    expect(await page.getByRole('list', { name: 'Lost by the answer' }).getByRole('listitem').allTextContents()).toEqual(['{{ship_date}}']);
    expect(f.fake.requestCount).toBe(2);
    await page.evaluate(`document.querySelector('.result').scrollIntoView()`);
    await screenshot(page, 'preview-protected-items');
  });

  it('says every protected item was kept when none was lost', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Order 48213 is on its way.' });
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByLabel('Sample text').fill('Your order 48213 has shipped.');
    await chooseOpenAi();
    await page.getByRole('button', { name: 'Refine' }).click();
    await page.locator('.protected-summary').waitFor();
    expect(await page.locator('.protected-summary p').textContent()).toMatch(/1 protected item .*The answer kept every one\.$/);
    expect(await page.getByRole('figure', { name: 'Original' }).locator('mark.kept').allTextContents()).toEqual(['48213']);
  });

  it('says in plain words that the provider rejected the key', async () => {
    f.fake.setBehaviour('rejectKey');
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await refine('sk-wrong');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.locator('p').first().textContent()).toBe('OpenAI did not accept your API key. Check the provider key and try again.');
    expect(await alert.locator('code').textContent()).toBe('provider "openai" rejected providerApiKey (HTTP 401)');
  });

  it('says in plain words that the provider did not answer in time', async () => {
    f.fake.setBehaviour('hang');
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByLabel('Sample text').fill(SAMPLE);
    await page.getByLabel('Provider', { exact: true }).selectOption({ label: 'Anthropic' });
    await page.getByLabel('Provider API key').fill(PROVIDER_KEY);
    await page.getByRole('button', { name: 'Refine' }).click();
    await page.getByText('Anthropic did not answer within 1.5 seconds.').waitFor();
  });

  it('asks for what is missing before calling anything', async () => {
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByLabel('Sample text').fill(SAMPLE);
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByRole('button', { name: 'Refine' }).click();
    await page.getByText('Type your OpenAI API key first.').waitFor();
    expect(f.fake.requestCount).toBe(0);
  });

  it('starts with Rules only, model and key disabled, and shows every rule still broken by rule, drawn where it is', async () => {
    const strict = await createViaApi('Strict voice', { avoid: ['synergy'], maxSentences: 2, signOff: 'Cheers' });
    await page.goto(`${f.server.url}/studio/#/personas/${strict}`);
    const provider = page.getByLabel('Provider', { exact: true });
    await provider.locator('option[value="rules"]').waitFor({ state: 'attached' });
    expect(await provider.inputValue()).toBe('rules');
    expect(await page.getByLabel('Model (optional)').isDisabled()).toBe(true);
    expect(await page.getByLabel('Provider API key').isDisabled()).toBe(true);

    await page.getByLabel('Sample text').fill('We love synergy. Pure synergy helps. Call us today.');
    await page.getByRole('button', { name: 'Refine' }).click();
    const refined = page.getByRole('figure', { name: 'Refined by Strict voice' });
    await refined.waitFor();
    // The sign-off was fixed; the banned word (twice) and the sentence limit are what remains, as the API says.
    expect(await refined.locator('.diff-text').textContent()).toBe('We love synergy. Pure synergy helps. Call us today.\n\nCheers');
    expect(await refined.locator('mark.violation').allTextContents()).toEqual(['synergy', 'synergy']);
    expect(await refined.locator('mark.violation').first().getAttribute('title')).toBe('Words to avoid: uses banned phrase "synergy"');
    const report = page.getByRole('region', { name: 'Rules still broken: 3 violations' });
    const rules = report.locator(':scope > ul > li');
    expect(await rules.evaluateAll((items) => items.map((item) => item.getAttribute('data-rule')))).toEqual(['maxSentences', 'avoid']);
    expect(await rules.nth(0).textContent()).toBe('Most sentences maxSentences ×1 requiredthe whole text — has 3 sentences; the limit is 2');
    expect(await rules.nth(1).locator('li').allTextContents()).toEqual([
      'synergy — uses banned phrase "synergy"',
      'synergy — uses banned phrase "synergy"',
    ]);
    expect(f.fake.requestCount).toBe(0);
    await page.evaluate(`document.querySelector('.result').scrollIntoView()`);
    await screenshot(page, 'preview-violations', { docs: true });

    // A persona whose rules all hold says so.
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByLabel('Sample text').fill('We will utilize your order.');
    await page.getByRole('button', { name: 'Refine' }).click();
    await page.getByText('The answer keeps every rule of this persona.').waitFor();
  });

  it('compares two personas on the same text, side by side', async () => {
    // The offline rules provider needs no key and rewrites deterministically from each persona's rules.
    const plain = await createViaApi('Plain', { vocabulary: { utilize: 'use', synergy: 'teamwork' } });
    const fancy = await createViaApi('Fancy', { vocabulary: { utilize: 'employ' }, signOff: 'Warm regards' });
    await page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Compare' }).click();
    await page.getByLabel('First persona').selectOption(plain);
    await page.getByLabel('Second persona').selectOption(fancy);
    await page.getByLabel('Sample text').fill(SAMPLE);
    await page.getByLabel('Provider', { exact: true }).selectOption('rules');
    await page.getByRole('button', { name: 'Compare' }).click();

    const first = page.getByRole('figure', { name: 'Plain' });
    const second = page.getByRole('figure', { name: 'Fancy' });
    await first.locator('.diff-text').waitFor();
    await second.locator('.diff-text').waitFor();
    expect(await first.locator('.diff-text').textContent()).toBe('Hello there, we will use teamwork to fix your order.');
    expect(await second.locator('.diff-text').textContent()).toMatch(/^Hello there, we will employ synergy to fix your order\.\s+Warm regards$/);
    expect(await second.locator('ins').allTextContents()).toContain('employ');
    expect(f.fake.requestCount).toBe(0);
    await screenshot(page, 'compare');
  });
});
