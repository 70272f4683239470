/**
 * Studio preview, Generate mode: a prompt in, the persona's answer out, through
 * POST /v1/chat/completions against the fake providers, whole and streamed.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { chromiumAvailable, screenshot, seriousAccessibilityViolations, SESSION_KEY_NAME, type StudioPage, useSignedInStudio } from './studio-browser.js';

const PROVIDER_KEY = 'sk-FAKE-not-a-key-studio-generate';
const PROMPT = 'Write two sentences telling a customer their refund went out today.';
const REPLY = 'Good news: we will utilize the fastest route, and your refund went out today.';
const FIXED = 'Good news: we will use the fastest route, and your refund went out today.';

describe.skipIf(!chromiumAvailable)('Persona Studio preview, Generate mode', () => {
  let f: RefineFixture;
  let studio: StudioPage;
  let page: Page;
  let personaId: string;

  const generate = async ({ provider = 'openai', key = PROVIDER_KEY, stream = false } = {}) => {
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByRole('radio', { name: 'Generate' }).check();
    await page.getByLabel('Prompt').fill(PROMPT);
    await page.getByLabel('Provider', { exact: true }).selectOption(provider);
    await page.getByLabel('Provider API key').fill(key);
    if (stream) await page.getByLabel('Stream the answer as it is written (no repair call)').check();
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
  };
  const answer = () => page.getByRole('figure', { name: 'Answer by Friendly support' });

  beforeAll(async () => {
    f = await startRefineFixture({ env: { PROVIDER_TIMEOUT_MS: '10000' } });
    const created = await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Friendly support', attributes: { tone: 'warm and direct', vocabulary: { utilize: 'use' } } } });
    personaId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.fake.reset());
  useSignedInStudio(() => f.server, (opened) => {
    studio = opened;
    page = opened.page;
  });

  it('answers the prompt in the persona\'s voice: its instructions first, its rules applied, in one provider call', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    await generate();
    await answer().waitFor();
    expect(await answer().locator('.generated-text').textContent()).toBe(FIXED);
    expect(await page.locator('.persona-headers').textContent()).toMatch(/^Persona version 1 · score \d{1,3}\/100 · every rule kept\.$/);
    expect(await page.locator('.spend').textContent()).toMatch(/^Answered by openai\/\S+ · \d+ input \+ \d+ output tokens, 1 provider call/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.evaluate(`document.querySelector('.result').scrollIntoView({ block: 'end' })`);
    await screenshot(page, 'preview-generate', { docs: true });

    // The provider got the persona's instructions before the prompt, and the key; the browser kept the key nowhere.
    expect(f.fake.requests).toHaveLength(1);
    const [request] = f.fake.requests;
    const sent = JSON.stringify(request!.body);
    expect(sent.indexOf('warm and direct')).toBeGreaterThan(-1);
    expect(sent.indexOf('warm and direct')).toBeLessThan(sent.indexOf(PROMPT));
    expect(request!.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    const stored = await page.evaluate<string>('JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage), document.cookie, location.href])');
    expect(stored).not.toContain(PROVIDER_KEY);
    expect(stored).toContain(SESSION_KEY_NAME);
  });

  it('streams the answer as it is written when the box is ticked, then shows it whole', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY, pieceChars: 4, pieceDelayMs: 40 });
    await generate({ provider: 'anthropic', stream: true });
    const pane = page.getByRole('figure', { name: 'Friendly support is writing…' });
    await pane.locator('.streamed-text').filter({ hasText: /\S/ }).waitFor();
    const partial = (await pane.locator('.streamed-text').textContent()) ?? '';
    expect(FIXED.startsWith(partial)).toBe(true);
    await answer().waitFor();
    expect(await answer().locator('.generated-text').textContent()).toBe(FIXED);
    expect(await page.locator('.persona-headers').textContent()).toMatch(/^Persona version 1/);
    expect(f.fake.requests[0]!.stream).toBe(true);
    expect(f.fake.requests[0]!.headers['x-api-key']).toBe(PROVIDER_KEY);
  });

  it('says in plain words that the provider refused the key, and keeps the session', async () => {
    f.fake.setBehaviour('rejectKey');
    await generate({ key: 'sk-FAKE-not-a-key-wrong' });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.locator('p').first().textContent()).toBe('OpenAI did not accept your API key. Check the provider key and try again.');
    expect(await alert.textContent()).not.toContain('sk-FAKE-not-a-key-wrong');
    expect(await page.getByRole('heading', { name: 'Preview' }).count()).toBe(1);
    expect(studio.problems).toEqual([]);
  });

  it('asks for a provider with a model instead of calling Rules only', async () => {
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByRole('radio', { name: 'Generate' }).check();
    await page.getByLabel('Prompt').fill(PROMPT);
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Generating needs a model: choose a provider other than Rules only (no model).');
    expect(f.fake.requestCount).toBe(0);
  });
});
