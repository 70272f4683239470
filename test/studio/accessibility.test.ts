/** Studio accessibility: axe-core on the main views, and layouts that hold at phone width and 200% zoom. */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { chromiumAvailable, launchChromium, openStudio, seriousAccessibilityViolations, signIn, type StudioPage } from './studio-browser.js';

const PHONE = { width: 375, height: 740 };
/** A 1280-pixel-wide window at 200% zoom lays out like a 640-pixel one. */
const ZOOMED_200 = { width: 640, height: 450 };

describe.skipIf(!chromiumAvailable)('Persona Studio accessibility', () => {
  let f: RefineFixture;
  let browser: Browser;
  let studio: StudioPage;
  let personaId: string;

  /** Every main view, each checked by `check`: sign-in, list, editor (form and JSON), preview with a result, compare, webhooks. */
  async function visitMainViews(page: Page, check: (view: string) => Promise<void>): Promise<void> {
    await check('sign-in');
    await signIn(page, f.server.key);
    await check('persona list');
    await page.goto(`${f.server.url}/studio/#/personas/${personaId}`);
    await page.getByRole('heading', { name: 'Support voice', level: 2 }).waitFor();
    await check('editor (form)');
    await page.getByLabel('JSON').check();
    await check('editor (JSON)');
    await page.getByLabel('Sample text').fill('We will utilize synergy. Please advise.');
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Provider API key').fill('sk-a11y');
    await page.getByRole('button', { name: 'Refine' }).click();
    await page.locator('.result').waitFor();
    await check('preview with a result');
    await page.goto(`${f.server.url}/studio/#/compare`);
    await page.getByRole('heading', { name: 'Compare personas' }).waitFor();
    await check('compare');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).waitFor();
    await check('webhooks');
  }

  beforeAll(async () => {
    f = await startRefineFixture();
    f.fake.setBehaviour({ mode: 'ok', reply: 'We will use teamwork. Let us know.' });
    browser = await launchChromium();
    const response = await f.server.request('/v1/personas', {
      method: 'POST',
      json: { name: 'Support voice', attributes: { tone: 'warm', vocabulary: { utilize: 'use' }, examples: [{ before: 'a', after: 'b' }], unknownKey: [1] } },
    });
    personaId = ((await response.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await browser?.close();
    await f?.close();
  });
  afterEach(async () => {
    expect(studio.problems).toEqual([]);
    await studio.close();
  });

  it('has no serious or critical axe violations on the main views', async () => {
    studio = await openStudio(browser, f.server);
    const found: string[] = [];
    await visitMainViews(studio.page, async (view) => {
      for (const violation of await seriousAccessibilityViolations(studio.page)) found.push(`${view}: ${violation}`);
    });
    expect(found).toEqual([]);
  });

  it.each([
    ['a phone-width screen', PHONE],
    ['200% zoom', ZOOMED_200],
  ])('fits %s without sideways scrolling', async (_name, viewport) => {
    studio = await openStudio(browser, f.server, viewport);
    const overflowing: string[] = [];
    await visitMainViews(studio.page, async (view) => {
      const widths = await studio.page.evaluate<{ page: number; window: number }>('({ page: document.documentElement.scrollWidth, window: window.innerWidth })');
      if (widths.page > widths.window) overflowing.push(`${view}: ${widths.page}px wide in a ${widths.window}px window`);
    });
    expect(overflowing).toEqual([]);
  });

  it('shows where keyboard focus is', async () => {
    studio = await openStudio(browser, f.server);
    const { page } = studio;
    await page.keyboard.press('Tab');
    const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle + " " + getComputedStyle(document.activeElement).outlineWidth');
    expect(outline).toBe('solid 3px');
  });
});
