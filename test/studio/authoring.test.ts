/**
 * Studio: authoring a voice against a real server and a fake provider speaking OpenAI's wire
 * format. The term base as a table with search (2,000 terms drawn a page at a time, edited from
 * the keyboard), the variant switcher in the editor (add, rename, remove, a variant's partial
 * attributes over the base) and in the preview (the request names the variant, the answer's
 * X-Persona-Variant shown), and "New from examples" (samples in, the draft with its evidence and
 * warnings, edited, saved through POST /v1/personas). Each view is screenshotted and checked
 * with axe.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { chromiumAvailable, focused, screenshot, seriousAccessibilityViolations, useSignedInStudio } from './studio-browser.js';

const PROVIDER_KEY = 'sk-FAKE-not-a-key-studio-drafting-0001';
const MODEL = 'gpt-drafting';

/** 2,000 distinct entries of every use, as a term base at its bound. */
const TERM_BASE = Array.from({ length: 2_000 }, (_, i) =>
  i % 3 === 0
    ? { term: `term${i}`, use: 'preferred', replaces: [`old${i}`] }
    : i % 3 === 1
      ? { term: `term${i}`, use: 'forbidden', suggest: `plain${i}` }
      : { term: `Term${i}`, use: 'keep', note: 'product name' },
);

const SAMPLES = [
  'Hi Sam,\n\nGood news: your export is ready. Grab it from the Projects page whenever suits you.\n\nCheers,\nThe Acme team',
  "Hi Priya,\n\nThanks for flagging the sync glitch. We've fixed it, so your boards should line up again. Shout if anything looks off.\n\nCheers,\nThe Acme team",
  'Hi Alex,\n\nYour workspace now has room for ten more members. Invite them from Settings, no need to ask us first.\n\nCheers,\nThe Acme team',
];

/** The model's structured answer: good members, one quote found in no sample, one value of the wrong type. */
const MODEL_ANSWER = {
  name: 'Acme support',
  description: 'The support team of Acme, writing to customers by e-mail.',
  tone: 'warm and upbeat',
  formality: 'casual',
  audience: '',
  personality: [],
  length: 7,
  vocabulary: [{ from: 'customers', to: 'members' }],
  avoid: ['kindly', 'please be advised'],
  signOff: 'Cheers,\nThe Acme team',
  examples: [{ before: 'Your export has been completed and is available for download.', after: 'Good news: your export is ready.' }],
  terms: [{ term: 'Acme', use: 'keep', replaces: [], suggest: '', note: 'the brand' }],
  evidence: [
    { attribute: 'tone', quote: 'Good news: your export is ready.' },
    { attribute: 'formality', quote: 'Shout if anything looks off.' },
    { attribute: 'audience', quote: 'A line written in no sample at all.' },
  ],
};

describe.skipIf(!chromiumAvailable)('Persona Studio authoring', () => {
  let f: RefineFixture;
  let page: Page;

  const api = async (path: string, method = 'GET', json?: unknown) => {
    const res = await f.server.request(path, { method, json });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.json() as Promise<{ id: string; name: string; attributes: Record<string, unknown> }>;
  };
  const openPersona = async (id: string) => {
    await page.goto(`${f.server.url}/studio/#/personas/${id}`);
    await page.getByRole('button', { name: 'Save', exact: true }).waitFor();
  };
  const save = async () => {
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Saved “/).waitFor();
  };
  const termRows = () => page.locator('table.terms tbody tr');
  /** A form field by its label (the rule settings below the form carry the rule's name too). */
  const field = (label: string) => page.getByRole('textbox', { name: label, exact: true });

  beforeAll(async () => {
    f = await startRefineFixture();
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.fake.reset());
  useSignedInStudio(() => f.server, (opened) => {
    page = opened.page;
  });

  it('edits a 2,000-term base as a searchable table, a page at a time, from the keyboard', async () => {
    const { id } = await api('/v1/personas', 'POST', { name: 'Term base', attributes: { tone: 'plain', terms: TERM_BASE } });
    await openPersona(id);
    const summary = page.locator('#attr-terms-summary');
    await expect.poll(() => summary.textContent()).toBe('Showing 1–50 of 2,000 terms.');
    // One page is drawn whatever the number of terms, so typing costs the same at 2,000.
    expect(await termRows().count()).toBe(50);
    expect(await page.locator('table.terms thead th').allTextContents()).toEqual(['Term', 'Use', 'Replaces', 'Suggest', 'Case-sensitive', 'Forms', 'Note', 'Actions']);
    expect(await page.getByLabel('Term, row 1', { exact: true }).inputValue()).toBe('term0');
    expect(await page.getByLabel('Replaces, row 1', { exact: true }).inputValue()).toBe('old0');
    expect(await page.getByLabel('Suggest, row 2', { exact: true }).inputValue()).toBe('plain1');
    expect(await page.getByLabel('Case-sensitive, row 3', { exact: true }).locator('option:checked').textContent()).toBe('Default (yes)');

    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => summary.textContent()).toBe('Showing 51–100 of 2,000 terms.');
    expect(await page.getByLabel('Term, row 51', { exact: true }).inputValue()).toBe('Term50');

    // Search finds a row in any column, and its edits land on that entry.
    await page.getByLabel('Search terms').fill('plain1999');
    await expect.poll(() => summary.textContent()).toBe('Showing 1–1 of 1 matching “plain1999” (2,000 in all).');
    expect(await termRows().count()).toBe(1);
    await page.getByLabel('Suggest, row 2000', { exact: true }).fill('simple');
    await page.getByLabel('Forms, row 2000', { exact: true }).selectOption('exact');
    await page.getByLabel('Search terms').fill('no such term');
    await expect.poll(() => summary.textContent()).toBe('No term matches “no such term”.');

    // At the bound, no row can be added; removing one makes room.
    await page.getByLabel('Search terms').fill('');
    expect(await page.getByRole('button', { name: 'Add to the term base' }).isDisabled()).toBe(true);
    await page.getByText('A term base holds at most 2,000 terms.').waitFor();
    await page.getByRole('button', { name: 'Remove term “term0”' }).click();
    await expect.poll(() => summary.textContent()).toBe('Showing 1–50 of 1,999 terms.');

    // From the keyboard: search → Add to the term base → the new row's term, then its columns in order.
    await page.getByLabel('Search terms').focus();
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button||Add to the term base');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('input|attr-terms-term-1999|Term, row 2000');
    await page.keyboard.type('sign-in');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatch(/^select\|\|/);
    await page.keyboard.press('Tab');
    await page.keyboard.type('login | log-in');
    await expect.poll(() => summary.textContent()).toBe('Showing 1,951–2,000 of 2,000 terms.');
    await screenshot(page, 'terms-1280-unsaved');
    await save();

    const { attributes } = await api(`/v1/personas/${id}`);
    const terms = attributes.terms as Record<string, unknown>[];
    expect(terms).toHaveLength(2_000);
    expect(terms[0]).toEqual(TERM_BASE[1]);
    expect(terms.find((entry) => entry.term === 'term1999')).toEqual({ term: 'term1999', use: 'forbidden', suggest: 'simple', forms: 'exact' });
    expect(terms.at(-1)).toEqual({ term: 'sign-in', use: 'preferred', replaces: ['login', 'log-in'] });

    await page.getByLabel('Search terms').fill('term19');
    await expect.poll(() => summary.textContent()).toBe('Showing 1–50 of 111 matching “term19” (2,000 in all).');
    await page.locator('#attr-terms-label').evaluate((label) => label.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'terms-1280', { docs: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('switches the editor between the persona and its variants: adds, renames and removes one, and edits a variant’s own attributes', async () => {
    const { id } = await api('/v1/personas', 'POST', {
      name: 'Acme voice',
      attributes: { tone: 'warm', signOff: 'Cheers,\nThe Acme team', variants: { 'de-DE': { locale: 'de-DE', signOff: 'Viele Grüße,\nIhr Acme-Team' }, legacy: { maxWords: 90 } } },
    });
    await openPersona(id);
    const switcher = page.getByLabel('Edit the attributes of');
    expect(await switcher.locator('option').allTextContents()).toEqual(['the persona (base)', 'variant de-DE', 'variant legacy']);
    expect(await field('Sign-off').inputValue()).toBe('Cheers,\nThe Acme team');

    await switcher.selectOption('de-DE');
    expect(await field('Sign-off').inputValue()).toBe('Viele Grüße,\nIhr Acme-Team');
    expect(await field('Locale').inputValue()).toBe('de-DE');
    // Empty in the variant: the persona's tone applies.
    expect(await field('Tone').inputValue()).toBe('');
    await field('Tone').fill('förmlich, freundlich');

    // A name the service would refuse is refused here, with the rule; then a good one.
    await page.getByRole('button', { name: 'Add a variant' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a variant' });
    await dialog.getByLabel('Variant name').fill('support chat');
    await dialog.getByRole('button', { name: 'Add variant' }).click();
    await dialog.getByText('Use at most 40 letters, digits, “_” and “-”, such as de-DE or support-chat.').waitFor();
    await dialog.getByLabel('Variant name').fill('de-DE');
    await dialog.getByLabel('Variant name').press('Enter');
    await dialog.getByText('There is already a variant named “de-DE”.').waitFor();
    await dialog.getByLabel('Variant name').fill('support-chat');
    await dialog.getByLabel('Variant name').press('Enter');
    await expect.poll(() => switcher.inputValue()).toBe('support-chat');
    await field('Maximum words').fill('60');

    await page.getByRole('button', { name: 'Rename variant support-chat' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename the variant “support-chat”' });
    await rename.getByLabel('Variant name').fill('chat');
    await rename.getByRole('button', { name: 'Rename variant' }).click();
    await expect.poll(() => switcher.locator('option').allTextContents()).toEqual(['the persona (base)', 'variant de-DE', 'variant legacy', 'variant chat']);

    await switcher.selectOption('legacy');
    await page.getByRole('button', { name: 'Remove variant legacy' }).click();
    await page.getByRole('dialog', { name: 'Remove the variant “legacy”?' }).getByRole('button', { name: 'Remove variant' }).click();
    await expect.poll(() => switcher.inputValue()).toBe('');
    await save();

    const { attributes } = await api(`/v1/personas/${id}`);
    expect(attributes).toEqual({
      tone: 'warm',
      signOff: 'Cheers,\nThe Acme team',
      variants: { 'de-DE': { locale: 'de-DE', signOff: 'Viele Grüße,\nIhr Acme-Team', tone: 'förmlich, freundlich' }, chat: { maxWords: 60 } },
    });
    // The service merges what the studio wrote.
    const merged = (await (await f.server.request(`/v1/personas/${id}/variants/de-DE`)).json()) as { attributes: Record<string, unknown> };
    expect(merged.attributes).toMatchObject({ tone: 'förmlich, freundlich', signOff: 'Viele Grüße,\nIhr Acme-Team', locale: 'de-DE' });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('previews in a variant: the refine and its check name it, and the answer’s X-Persona-Variant is shown', async () => {
    const { id } = await api('/v1/personas', 'POST', {
      name: 'Acme voice',
      attributes: { tone: 'warm', signOff: 'Cheers,\nThe Acme team', variants: { 'de-DE': { locale: 'de-DE', signOff: 'Viele Grüße,\nIhr Acme-Team' } } },
    });
    await openPersona(id);
    await page.getByLabel('Edit the attributes of').selectOption('de-DE');
    const variant = page.getByRole('combobox', { name: 'Variant', exact: true });
    expect(await variant.locator('option').allTextContents()).toEqual(['None: the persona itself', 'de-DE']);
    await variant.selectOption('de-DE');
    await page.getByLabel('Sample text').fill('Ihr Export ist fertig.');
    // The rules provider: the variant's sign-off is added by the service's own rules, no model needed.
    await page.getByLabel('Provider', { exact: true }).selectOption('rules');
    const refines: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/v1\/(refine|check)$/.test(request.url())) refines.push(request.postDataJSON());
    });
    await page.getByRole('button', { name: 'Refine', exact: true }).click();
    const refined = page.getByRole('figure', { name: 'Refined by Acme voice' });
    await refined.waitFor();
    expect(await refined.textContent()).toContain('Viele Grüße,\nIhr Acme-Team');
    expect(await page.locator('.spend').first().textContent()).toMatch(/^Variant de-DE · /);
    expect(refines).toEqual([
      expect.objectContaining({ personaId: id, variant: 'de-DE', provider: 'rules' }),
      expect.objectContaining({ personaId: id, variant: 'de-DE' }),
    ]);
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.locator('.variant-switcher').evaluate((switcher) => switcher.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'variants-1280', { docs: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('drafts a persona from three samples, shows each quote and what was left out, and saves the edited draft', async () => {
    f.fake.setBehaviour({ mode: 'ok', structured: MODEL_ANSWER });
    // What the service answers for these samples: the page must show exactly this.
    const expected = (await (
      await f.server.request('/v1/personas/draft', { method: 'POST', json: { samples: SAMPLES, provider: 'openai', providerApiKey: PROVIDER_KEY } })
    ).json()) as { name: string; attributes: Record<string, unknown>; evidence: Record<string, string>; warnings: { attribute?: string; message: string }[] };
    expect(expected.warnings.length).toBeGreaterThan(0);
    f.fake.reset();
    f.fake.setBehaviour({ mode: 'ok', structured: MODEL_ANSWER });

    await page.getByRole('link', { name: 'New from examples' }).click();
    await page.getByRole('heading', { name: 'New persona from examples' }).waitFor();
    // Nothing to draft from yet, and the rules provider has no model: both said before any request.
    await page.getByRole('button', { name: 'Draft persona' }).click();
    await page.getByRole('alert').getByText('Paste at least one sample text first.').waitFor();
    await page.getByLabel('Sample 1', { exact: true }).fill(SAMPLES[0]!);
    await page.getByRole('button', { name: 'Draft persona' }).click();
    await page.getByRole('alert').getByText('Rules only (no model) cannot draft a persona: choose a provider with a model.').waitFor();

    for (const [index, sample] of SAMPLES.entries()) {
      if (index > 0) await page.getByRole('button', { name: 'Add a sample' }).click();
      await page.getByLabel(`Sample ${index + 1}`, { exact: true }).fill(sample);
    }
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Model (optional)').fill(MODEL);
    await page.getByLabel('Provider API key').fill(PROVIDER_KEY);
    await page.getByRole('button', { name: 'Draft persona' }).click();

    const evidence = page.getByRole('complementary', { name: 'Evidence from your samples' });
    await evidence.waitFor();
    expect(await evidence.locator('dl > div').evaluateAll((items) => items.map((item) => [item.querySelector('dt')!.textContent, item.querySelector('dd')!.textContent]))).toEqual(
      Object.entries(expected.evidence).map(([attribute, quote]) => [attribute === 'tone' ? 'Tone' : attribute === 'formality' ? 'Formality' : attribute, quote]),
    );
    expect(await evidence.locator('.draft-warnings li').allTextContents()).toEqual(
      expected.warnings.map((warning) => `${warning.attribute === undefined ? '' : `${warning.attribute === 'length' ? 'Length' : warning.attribute === 'audience' ? 'Audience' : warning.attribute}: `}${warning.message}`),
    );
    expect(await evidence.locator('.spend').textContent()).toMatch(/^Drafting: \d+ input \+ \d+ output tokens, 1 provider call\.$/);
    // The one request: the samples, the caller's key and model, through the provider's structured output.
    expect(f.fake.requests).toHaveLength(1);
    expect(f.fake.requests[0]!.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(f.fake.requests[0]!.model).toBe(MODEL);
    for (const sample of SAMPLES) expect(f.fake.requests[0]!.userText).toContain(sample);

    // The draft is a new persona in the editor, as the service answered it, ready to change.
    const name = page.getByLabel('Name', { exact: true });
    expect(await name.inputValue()).toBe(expected.name);
    expect(await field('Tone').inputValue()).toBe(expected.attributes.tone);
    expect(await page.getByLabel('Term, row 1', { exact: true }).inputValue()).toBe('Acme');
    await field('Formality').fill('casual, never slangy');
    await screenshot(page, 'draft-1280', { docs: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await page.setViewportSize({ width: 390, height: 1800 });
    await page.getByRole('heading', { name: 'New persona from examples' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'draft-390', { docs: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(`Created “${expected.name}”.`).waitFor();
    await expect.poll(() => page.url()).toMatch(/#\/personas\/[^/]+$/);
    const personaId = decodeURIComponent(page.url().split('#/personas/')[1]!);
    const saved = await api(`/v1/personas/${personaId}`);
    expect(saved).toEqual({ id: personaId, name: expected.name, attributes: { ...expected.attributes, formality: 'casual, never slangy' } });

    // The provider key stayed in the page's memory: not in the address, not in storage.
    expect(page.url()).not.toContain(PROVIDER_KEY);
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })');
    expect(stored).not.toContain(PROVIDER_KEY);
  });

  it('shows a provider refusing the key as the refine does, and keeps the samples to draft again', async () => {
    f.fake.setBehaviour({ mode: 'rejectKey' });
    await page.goto(`${f.server.url}/studio/#/personas/draft`);
    await page.getByLabel('Sample 1', { exact: true }).fill(SAMPLES[1]!);
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Provider API key').fill(PROVIDER_KEY);
    await page.getByRole('button', { name: 'Draft persona' }).click();
    const failure = page.getByRole('alert');
    await failure.waitFor();
    expect(await failure.textContent()).toMatch(/key/i);
    expect(await failure.textContent()).not.toContain(PROVIDER_KEY);
    expect(await page.getByLabel('Sample 1', { exact: true }).inputValue()).toBe(SAMPLES[1]);
    expect(await page.getByRole('complementary', { name: 'Evidence from your samples' }).count()).toBe(0);
  });
});
