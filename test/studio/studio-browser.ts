/**
 * Chromium for the studio's end-to-end tests: Debian's /usr/bin/chromium driven by playwright-core
 * (never a downloaded browser). Where it is missing the tests are skipped loudly; under
 * REQUIRE_SERVICES=1 (CI) a missing browser fails the run instead, like PostgreSQL and Redis.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import type { TestServer } from '../helpers/test-server.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Without the networking flags Chromium dials Google's hosts at start, which this machine refuses.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function chromiumPresent(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.REQUIRE_SERVICES === '1') throw new Error(`REQUIRE_SERVICES=1 but Chromium is not installed at ${CHROMIUM_PATH}`);
  process.stderr.write('\n*** SKIPPING studio browser tests: Chromium not found ***\n\n');
  return false;
}

export const chromiumAvailable = chromiumPresent();

/**
 * A browser step that waits longer than this is stuck, not slow: Playwright then fails it naming
 * the step, well inside the test's own timeout, which on a loaded two-core machine has room for
 * several slow steps (Chromium shares the cores with the server and the other test files).
 */
const STEP_TIMEOUT_MS = 20_000;
vi.setConfig({ testTimeout: 60_000 });

/** A fresh browser per test file; every context gets a new, empty profile. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export const SESSION_KEY_NAME = 'persona-refine.studio.apiKey';

export interface StudioPage {
  page: Page;
  /** CSP violations and uncaught errors seen so far: a test ends with none. */
  problems: string[];
  close(): Promise<void>;
}

export async function openStudio(browser: Browser, server: TestServer, viewport = { width: 1280, height: 900 }): Promise<StudioPage> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await page.goto(`${server.url}/studio/`);
  return { page, problems, close: () => context.close() };
}

export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your personas' }).waitFor();
}

/** What has keyboard focus, in words a test can match. */
export function focused(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const el = document.activeElement;
    if (!el) return '';
    const label = el.labels && el.labels[0] ? el.labels[0].textContent : el.getAttribute('aria-label');
    return [el.tagName.toLowerCase(), el.id, (label || el.textContent || '').trim()].join('|');
  })()`);
}

/** Presses Tab until the focused element's description matches, as a keyboard-only person would. */
export async function tabTo(page: Page, target: RegExp, maxPresses = 40): Promise<void> {
  for (let press = 0; press < maxPresses; press++) {
    await page.keyboard.press('Tab');
    if (target.test(await focused(page))) return;
  }
  throw new Error(`Tab never reached ${target} (last focus: ${await focused(page)})`);
}

const root = new URL('../../', import.meta.url).pathname;

/**
 * Saves a screenshot to test-artifacts/studio/. With `docs`, also to docs/screenshots/ (committed,
 * shown in the README) when it is missing there or UPDATE_SCREENSHOTS=1, so an ordinary test run
 * does not leave changed images in the work tree.
 */
export async function screenshot(page: Page, name: string, options: { docs?: boolean } = {}): Promise<void> {
  const artifacts = join(root, 'test-artifacts', 'studio');
  mkdirSync(artifacts, { recursive: true });
  const file = join(artifacts, `${name}.png`);
  await page.screenshot({ path: file });
  if (!options.docs) return;
  const docs = join(root, 'docs', 'screenshots');
  const published = join(docs, `studio-${name}.png`);
  if (existsSync(published) && process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(docs, { recursive: true });
  copyFileSync(file, published);
}

/** Runs axe-core in the page; returns the serious and critical violations. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axeSource);
  return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

/**
 * The hooks every signed-in browser suite shares: one browser per file; per test a
 * fresh page signed in to `server()`, handed to `use`, and afterwards checked for
 * console errors and failed requests. Call it after the hook that starts the server.
 */
export function useSignedInStudio(server: () => TestServer, use: (studio: StudioPage) => void): void {
  let browser: Browser;
  let studio: StudioPage;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    studio = await openStudio(browser, server());
    await signIn(studio.page, server().key);
    use(studio);
  });
  afterEach(async () => {
    expect(studio.problems).toEqual([]);
    await studio.close();
  });
}
