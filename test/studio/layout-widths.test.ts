/**
 * Studio at a desktop's 1,280 px and a phone's 390 px: no view is cut off (nothing reaches past
 * the viewport's right edge except inside a box that scrolls), and no table header breaks inside
 * a word.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, launchChromium, openStudio, signIn } from './studio-browser.js';

/** Every visible element past the viewport's sides that no scrolling box holds: what a reader cannot reach. */
const cutOff = (page: Page) =>
  page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const held = (el) => { for (let up = el.parentElement; up; up = up.parentElement) if (scrolls(up)) return true; return false; };
    return [...document.body.querySelectorAll('*')].filter((el) => {
      const box = el.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1 || getComputedStyle(el).visibility === 'hidden') return false;
      return (box.right > width + 0.5 || box.left < -0.5) && !held(el);
    }).map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className ? '.' + el.className : '') + ' ' + Math.round(el.getBoundingClientRect().right) + ' > ' + width);
  })()`);

/** Each column header's words that the browser broke across lines. */
const brokenHeaderWords = (page: Page) =>
  page.evaluate<string[]>(`(() => {
    const broken = [];
    for (const th of document.querySelectorAll('thead th')) {
      const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const word of node.textContent.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, word.index);
          range.setEnd(node, word.index + word[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.push(word[0]);
        }
      }
    }
    return broken;
  })()`);

describe.skipIf(!chromiumAvailable)('Persona Studio at 1,280 and 390 px', () => {
  let server: TestServer;
  let browser: Browser;
  let id: string;
  const api = async (path: string, init?: RequestInit & { json?: unknown }) => (await server.request(path, init)).json();

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    const attributes = {
      description: 'Warm, direct support voice for a long-named product line',
      vocabulary: { customers: 'members' },
      avoid: ['synergy'],
      terms: [{ term: 'sign-in', use: 'preferred', replaces: ['login', 'log-in'], note: 'the product’s word, never login' }],
      variants: { 'de-DE': { locale: 'de-DE' } },
    };
    ({ id } = (await api('/v1/personas', { method: 'POST', json: { name: 'A persona with a rather long name to wrap', attributes } })) as { id: string });
    await api('/v1/personas', { method: 'POST', json: { name: 'A persona with a rather long name to wrap' } });
    await api(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Renamed persona' } });
    await api(`/v1/personas/${id}/labels/production`, { method: 'PUT', json: { version: 1 } });
    await api('/v1/keys', { method: 'POST', json: { name: 'a key with a long descriptive name', scopes: ['refine', 'personas:read'], limits: { tokensPerDay: 100000 } } });
    await api(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ name: 'welcome', content: 'Dear customers, pure synergy, welcome.' }] } });
    const run = (await api(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'rules' } })) as { id: string };
    await vi.waitFor(async () => expect(((await api(`/v1/personas/${id}/evals/${run.id}`)) as { status: string }).status).toBe('completed'), { timeout: 10_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const views: [string, string, (page: Page) => Promise<unknown>][] = [
    ['home', '#/', (page) => page.getByRole('heading', { name: 'Your personas' }).waitFor()],
    ['persona', '#/personas/:id', (page) => page.getByRole('button', { name: 'Save', exact: true }).waitFor()],
    ['history', '#/personas/:id/history', (page) => page.getByRole('table').waitFor()],
    [
      'evaluations',
      '#/personas/:id/evals',
      async (page) => {
        await page.getByRole('button', { name: 'Show its results' }).click();
        await page.locator('table.results tbody tr').waitFor();
      },
    ],
    ['draft', '#/personas/draft', (page) => page.getByRole('heading', { name: 'New persona from examples' }).waitFor()],
    ['compare', '#/compare', (page) => page.getByRole('heading', { name: 'Compare personas' }).waitFor()],
    ['keys', '#/keys', (page) => page.locator('.keys-table tbody tr').first().waitFor()],
    ['webhooks', '#/webhooks', (page) => page.getByRole('button', { name: 'Add endpoint' }).waitFor()],
  ];

  for (const width of [1280, 390]) {
    it.each(views)(`at ${width} px, %s is not cut off and its table headers keep their words whole`, async (_name, hash, ready) => {
      const studio = await openStudio(browser, server, { width, height: 900 });
      try {
        const { page } = studio;
        await signIn(page, server.key);
        await page.goto(`${server.url}/studio/${hash.replace(':id', id)}`);
        await ready(page);
        expect(await cutOff(page)).toEqual([]);
        expect(await brokenHeaderWords(page)).toEqual([]);
        expect(studio.problems).toEqual([]);
      } finally {
        await studio.close();
      }
    });
  }
});
