/**
 * Studio: a persona's quality dashboard over a week of live traffic. The server's clock is stepped
 * a day at a time while the offline `rules` provider (no tokens) and a fake OpenAI (tokens as it
 * reports them) refine and callers give feedback; the charts' points are then compared with what
 * GET /v1/personas/{id}/quality answers.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { callerKey, refineEnv } from '../helpers/refine-fixture.js';
import { SteppedClock } from '../helpers/stepped-clock.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, focused, screenshot, seriousAccessibilityViolations, tabTo, useSignedInStudio } from './studio-browser.js';

const DAY_MS = 86_400_000;
const WEEK = 7;

interface QualityRow {
  day?: string;
  version?: number;
  answers: number;
  meanScore: number | null;
  findings: Record<string, number>;
  feedback: { up: number; down: number };
  tokens: { input: number; output: number };
}

/** Each mark of the chart with this caption: its series, category and value, as drawn. */
const marksOf = (page: Page, chart: string) =>
  page.evaluate<{ series: string; category: string; value: number; label: string }[]>(`(() => {
    const figure = [...document.querySelectorAll('figure.chart')].find((f) => f.querySelector('figcaption').textContent === ${JSON.stringify(chart)});
    if (!figure) return [];
    return [...figure.querySelectorAll('.mark')].map((mark) => ({
      series: mark.dataset.series, category: mark.dataset.category, value: Number(mark.dataset.value), label: mark.getAttribute('aria-label'),
    }));
  })()`);

describe.skipIf(!chromiumAvailable)('Persona Studio quality dashboard', () => {
  let fake: FakeProviderServer;
  let server: TestServer;
  let page: Page;
  let personaId: string;
  const clock = new SteppedClock();
  let requests = 0;

  const api = async (path: string, method = 'GET', json?: unknown) => {
    const res = await server.request(path, { method, json });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.json();
  };
  const refine = async (content: string) => {
    const requestId = `dashboard-${++requests}`;
    const res = await server.request('/v1/refine', { method: 'POST', headers: { 'x-request-id': requestId }, json: { provider: 'rules', personaId, content } });
    expect(res.status).toBe(200);
    await res.text();
    return requestId;
  };
  /** A refine through the fake OpenAI: its tokens grow with the content. */
  const refineThroughProvider = async (content: string) => {
    const res = await server.request('/v1/refine', { method: 'POST', json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content } });
    expect(res.status, await res.clone().text()).toBe(200);
    await res.text();
  };
  const quality = async (query = '') => ((await api(`/v1/personas/${personaId}/quality${query}`)) as { rows: QualityRow[] }).rows;

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    fake.setBehaviour({ mode: 'ok', reply: 'We value teamwork.' });
    server = await startTestServer({ clock, env: refineEnv(fake) });
    personaId = (await api('/v1/personas', 'POST', { name: 'Support voice', attributes: { avoid: ['synergy'], maxWords: 6, minScore: 95 } })).id;
    // A week ending today: the dashboard's default range (the last 30 days) holds all of it.
    clock.step(-(WEEK - 1) * DAY_MS);
    for (let day = 0; day < WEEK; day++) {
      // Midweek a new version also avoids "leverage": two lines by version, and a second rule's name.
      if (day === 4) await api(`/v1/personas/${personaId}`, 'PATCH', { attributes: { avoid: ['synergy', 'leverage'], maxWords: 6, minScore: 95 } });
      const asked: string[] = [];
      const texts = ['We value teamwork here.', 'We leverage synergy here.', 'We value teamwork here, every single day of the week.'];
      for (let answer = 0; answer <= day % 4; answer++) asked.push(await refine(texts[answer % 3]!));
      if (day % 2 === 0) await api('/v1/feedback', 'POST', { requestId: asked[0], rating: 'up' });
      if (asked[1]) await api('/v1/feedback', 'POST', { requestId: asked[1], rating: 'down' });
      // Every third day answers from the rules provider alone: a day of answers that cost no token.
      if (day % 3 !== 1) await refineThroughProvider(`We value teamwork${', truly'.repeat(day)}.`);
      clock.step(DAY_MS);
    }
    clock.reset();
  });
  afterAll(async () => {
    clock.reset();
    await server?.close();
    await fake?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    page = opened.page;
  });

  it('draws answers, mean score by version against minScore, findings by rule, feedback and tokens as the API counts them', async () => {
    const rows = await quality();
    expect(rows.map((row) => row.day)).toHaveLength(WEEK);
    await page.goto(`${server.url}/studio/#/personas/${personaId}`);
    await page.getByRole('link', { name: 'Quality' }).click();
    await page.getByRole('heading', { name: 'Quality of Support voice' }).waitFor();
    await page.getByRole('figure', { name: 'Tokens per day' }).waitFor();

    const answers = await marksOf(page, 'Answers per day');
    expect(answers.map(({ category, value }) => [category, value])).toEqual(rows.map((row) => [row.day, row.answers]));

    const scores = await marksOf(page, 'Mean score per day, by version');
    const expectedScores = [];
    for (const row of rows) {
      for (const byVersion of await quality(`?from=${row.day}&to=${row.day}&groupBy=version`)) {
        expectedScores.push({ series: `version ${byVersion.version}`, category: row.day, value: byVersion.meanScore });
      }
    }
    const sortKey = (mark: { series: string; category?: string }) => `${mark.series}|${mark.category}`;
    expect(scores.map(({ series, category, value }) => ({ series, category, value })).sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual(
      expectedScores.sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
    );
    expect(new Set(scores.map((mark) => mark.series))).toEqual(new Set(['version 1', 'version 2']));
    await page.getByRole('figure', { name: 'Mean score per day, by version' }).getByText('minScore 95').first().waitFor();

    const findings: Record<string, number> = {};
    for (const row of rows) for (const [rule, count] of Object.entries(row.findings)) findings[rule] = (findings[rule] ?? 0) + count;
    expect(Object.keys(findings).sort()).toEqual(['avoid', 'maxWords']);
    const drawnFindings = await marksOf(page, 'Findings by rule');
    expect(Object.fromEntries(drawnFindings.map(({ category, value }) => [category, value]))).toEqual(findings);

    const feedback = await marksOf(page, 'Feedback per day');
    const expectedFeedback = rows.flatMap((row) =>
      (['up', 'down'] as const).filter((rating) => row.feedback[rating] > 0).map((rating) => ({ series: rating, category: row.day, value: row.feedback[rating] })),
    );
    expect(expectedFeedback.map((mark) => mark.series)).toContain('down');
    expect(feedback.map(({ series, category, value }) => ({ series, category, value }))).toEqual(expectedFeedback);

    // A day's input and output tokens stacked; a day that cost none has no mark, and says so by its absence.
    const tokens = await marksOf(page, 'Tokens per day');
    const expectedTokens = rows.flatMap((row) =>
      (['input', 'output'] as const).filter((part) => row.tokens[part] > 0).map((part) => ({ series: part, category: row.day, value: row.tokens[part] })),
    );
    expect(rows.filter((row) => row.tokens.input > 0)).toHaveLength(5);
    expect(rows.filter((row) => row.tokens.input === 0 && row.tokens.output === 0)).toHaveLength(2);
    expect(tokens.map(({ series, category, value }) => ({ series, category, value }))).toEqual(expectedTokens);
    const lastTokens = expectedTokens.at(-1)!;
    await page.locator(`figure.chart .mark[data-series="${lastTokens.series}"][data-category="${lastTokens.category}"]`).hover();
    expect(await page.getByRole('figure', { name: 'Tokens per day' }).locator('.tooltip text').textContent()).toBe(
      `${lastTokens.category}: ${lastTokens.value} ${lastTokens.series} token${lastTokens.value === 1 ? '' : 's'}`,
    );
    await page.mouse.move(0, 0);

    // One Tab stop per chart; the arrow keys walk its points and the tooltip says each value.
    const first = rows[0]!;
    const second = rows[1]!;
    await tabTo(page, new RegExp(`^g\\|\\|${first.day}: ${first.answers} answer`));
    await page.keyboard.press('ArrowRight');
    expect(await focused(page)).toMatch(new RegExp(`^g\\|\\|${second.day}: ${second.answers} answers?`));
    const tooltip = page.getByRole('figure', { name: 'Answers per day' }).locator('.tooltip text');
    expect(await tooltip.textContent()).toMatch(new RegExp(`^${second.day}: ${second.answers} answers?, \\d+ below minScore$`));
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatch(/^g\|\|\d{4}-\d\d-\d\d, version 1: mean score [\d.]+$/);

    // A pointer gets the same value on hover.
    const lastFeedback = expectedFeedback.at(-1)!;
    await page.locator(`figure.chart .mark[data-series="${lastFeedback.series}"][data-category="${lastFeedback.category}"]`).hover();
    expect(await page.getByRole('figure', { name: 'Feedback per day' }).locator('.tooltip text').textContent()).toBe(
      `${lastFeedback.category}: ${lastFeedback.value} rated ${lastFeedback.series}`,
    );
    await page.mouse.move(0, 0);

    await page.setViewportSize({ width: 1280, height: 1300 });
    await page.getByRole('heading', { name: 'Quality of Support voice' }).evaluate('(heading) => heading.scrollIntoView()');
    await screenshot(page, 'quality-1280', { docs: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('fits a phone: charts drawn at its width, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 2450 });
    await page.goto(`${server.url}/studio/#/personas/${personaId}/quality`);
    await page.getByRole('figure', { name: 'Tokens per day' }).waitFor();
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
    const widths = await page.evaluate<number[]>(`[...document.querySelectorAll('figure.chart svg[role=group]')].map((svg) => svg.getBoundingClientRect().right)`);
    expect(widths).toHaveLength(5);
    for (const right of widths) expect(right).toBeLessThanOrEqual(390);
    expect((await marksOf(page, 'Answers per day')).map((mark) => mark.value)).toEqual((await quality()).map((row) => row.answers));
    await page.getByRole('heading', { name: 'Quality of Support voice' }).evaluate('(heading) => heading.scrollIntoView()');
    await screenshot(page, 'quality-390', { docs: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('keeps answers for review, reads one beside its text, resolves it, and adds another as a sample', async () => {
    await page.goto(`${server.url}/studio/#/personas/${personaId}/quality`);
    const queue = page.getByRole('region', { name: 'Review queue' });
    await queue.getByText('No open reviews', { exact: false }).waitFor();
    await queue.getByLabel('Keep for review').selectOption('all');
    await queue.getByRole('button', { name: 'Save retention' }).click();
    await queue.getByText('Keeping every answer for 30 days.').waitFor();
    expect(await api(`/v1/personas/${personaId}/retention`)).toEqual({ keep: 'all', days: 30 });

    await refine('We leverage synergy in the queue.');
    await refine('We value teamwork in the queue.');
    await page.reload();
    await queue.getByRole('list', { name: 'Open reviews' }).waitFor();
    expect(await queue.getByLabel('Keep for review').inputValue()).toBe('all');
    expect(await queue.getByRole('list', { name: 'Open reviews' }).getByRole('button').count()).toBe(2);
    const open = (await api(`/v1/personas/${personaId}/reviews`)) as { requestId: string; content: string; response: string }[];
    const first = open[0]!;
    const article = queue.getByRole('article');
    expect(await article.getByRole('figure', { name: 'Asked' }).locator('.review-text').textContent()).toBe(first.content);
    expect(await article.getByRole('figure', { name: 'Answered' }).locator('.review-text').textContent()).toBe(first.response);

    await queue.getByRole('article').scrollIntoViewIfNeeded();
    await screenshot(page, 'quality-review', { docs: true });

    await queue.getByLabel('Sample name (optional)').fill('from the queue');
    await queue.getByRole('button', { name: 'Resolve and add as a sample' }).click();
    await queue.getByText('Resolved; its text is now an evaluation sample.').waitFor();
    const samples = (await api(`/v1/personas/${personaId}/samples`)).samples as { name?: string; content: string }[];
    expect(samples.map(({ name, content }) => ({ name, content }))).toEqual([{ name: 'from the queue', content: first.content }]);

    await queue.getByRole('button', { name: 'Resolve', exact: true }).click();
    await queue.getByText('No open reviews', { exact: false }).waitFor();
    expect(await api(`/v1/personas/${personaId}/reviews`)).toEqual([]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });
});
