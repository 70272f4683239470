/** Studio preview, streamed: the text appears piece by piece in the output pane, and Stop aborts the stream. */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { chromiumAvailable, useSignedInStudio } from './studio-browser.js';

const PROVIDER_KEY = 'sk-studio-stream-Pq72NsK1';
const REPLY = 'Hi there, we will utilize teamwork to fix your order today, and every question you send us gets an answer within the hour.';
const FIXED = 'Hi there, we will use teamwork to fix your order today, and every question you send us gets an answer within the hour.';

describe.skipIf(!chromiumAvailable)('Persona Studio preview, streamed', () => {
  let f: RefineFixture;
  let page: Page;
  let personaId: string;

  const startStream = async () => {
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByLabel('Sample text').fill('Hello, we will utilize teamwork.');
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Provider API key').fill(PROVIDER_KEY);
    await page.getByLabel('Stream the answer as it is written (no repair call)').check();
    await page.getByRole('button', { name: 'Refine' }).click();
  };
  /** Resolves once some text, but not the whole answer, is in the pane while the stream still runs. */
  const partialText = async () => {
    const pane = page.getByRole('figure', { name: 'Friendly support is writing…' });
    await pane.locator('.streamed-text').filter({ hasText: /\S/ }).waitFor();
    return (await pane.locator('.streamed-text').textContent()) ?? '';
  };

  beforeAll(async () => {
    f = await startRefineFixture({ env: { PROVIDER_TIMEOUT_MS: '10000' } });
    const created = await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Friendly support', attributes: { vocabulary: { utilize: 'use' } } } });
    personaId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.fake.reset());
  useSignedInStudio(() => f.server, (opened) => {
    page = opened.page;
  });

  it('shows the text as it arrives, fixed in flight, then the result with its diff', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY, pieceChars: 4, pieceDelayMs: 60 });
    await startStream();
    const partial = await partialText();
    expect(partial.length).toBeLessThan(FIXED.length);
    expect(FIXED.startsWith(partial)).toBe(true);
    expect(partial).not.toContain('utilize');
    const refined = page.getByRole('figure', { name: 'Refined by Friendly support' });
    await refined.waitFor();
    expect(await refined.locator('.diff-text').textContent()).toBe(FIXED);
    expect(await page.locator('.spend').textContent()).toMatch(/^\d+ input \+ \d+ output tokens, 1 provider call\.$/);
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    expect(f.fake.requests[0]!.stream).toBe(true);
  });

  it('shows the rules a streamed answer still breaks, by rule, drawn where they are', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hi there, we will utilize synergy today.', pieceChars: 5 });
    const strict = await f.server.request('/v1/personas', {
      method: 'POST',
      json: { name: 'No buzzwords', attributes: { vocabulary: { utilize: 'use' }, avoid: ['synergy'] } },
    });
    await page.goto(`${f.server.url}/studio/#/personas/${((await strict.json()) as { id: string }).id}`);
    await page.getByLabel('Sample text').fill('Hello, we will utilize synergy.');
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Provider API key').fill(PROVIDER_KEY);
    await page.getByLabel('Stream the answer as it is written (no repair call)').check();
    await page.getByRole('button', { name: 'Refine' }).click();
    const refined = page.getByRole('figure', { name: 'Refined by No buzzwords' });
    await refined.waitFor();
    // No repair call on a stream: the banned word stays, and the preview says where.
    expect(await refined.locator('.diff-text').textContent()).toBe('Hi there, we will use synergy today.');
    expect(await refined.locator('mark.violation[data-rule="avoid"]').allTextContents()).toEqual(['synergy']);
    const report = page.getByRole('region', { name: 'Rules still broken: 1 violation' });
    expect(await report.locator(':scope > ul > li').textContent()).toBe('Words to avoid avoid ×1 requiredsynergy — uses banned phrase "synergy"');
    expect(f.fake.requestCount).toBe(1);
  });

  it('Stop aborts the stream: the provider connection closes and the text so far stays', async () => {
    f.fake.setBehaviour({ mode: 'streamStall', reply: REPLY, failAfterPieces: 20, pieceChars: 4 });
    await startStream();
    const partial = await partialText();
    await page.getByRole('button', { name: 'Stop' }).click();
    const stopped = page.getByRole('figure', { name: 'Stopped: what Friendly support had written' });
    await stopped.waitFor();
    // Pieces sent before the stall may still land between reading the pane and the click: what stays is at least what was seen, and only the answer.
    const kept = (await stopped.locator('.streamed-text').textContent()) ?? '';
    expect(kept.startsWith(partial)).toBe(true);
    expect(FIXED.startsWith(kept)).toBe(true);
    await f.fake.waitForClientClose(f.fake.requests[0]!);
    expect(await page.getByRole('button', { name: 'Refine' }).isEnabled()).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});
