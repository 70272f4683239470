/** Studio: a persona's history, the diff between two versions, restore, labels, and comparing two versions. */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, screenshot, seriousAccessibilityViolations, useSignedInStudio } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio history', () => {
  let server: TestServer;
  let page: Page;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    page = opened.page;
  });

  const api = async (path: string, method = 'GET', json?: unknown) => (await server.request(path, { method, json })).json();
  const labelsOf = async (id: string) => (await api(`/v1/personas/${id}/labels`)) as Record<string, number>;
  const versionedPersona = async (name: string) => {
    const { id } = await api('/v1/personas', 'POST', { name, attributes: { tone: 'warm', vocabulary: { utilize: 'use' } } });
    await api(`/v1/personas/${id}`, 'PATCH', { attributes: { tone: 'blunt', vocabulary: { utilize: 'employ' } } });
    return id as string;
  };

  it('lists versions with their labels, diffs two of them word by word, and restores one after confirming', async () => {
    const id = await versionedPersona('Historian');
    await api(`/v1/personas/${id}/labels/production`, 'PUT', { version: 1 });
    await page.goto(`${server.url}/studio/#/personas/${id}`);
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History of Historian' }).waitFor();

    // Newest first: what a reader looks for first, and what a restore would become.
    const rows = page.getByRole('table', { name: 'Versions, newest first' }).locator('tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.locator('th').allTextContents()).toEqual(['2', '1']);
    expect(await rows.nth(0).locator('td').nth(3).textContent()).toBe('latest');
    expect(await rows.nth(1).locator('td').nth(3).textContent()).toBe('production');
    expect(await rows.nth(1).locator('td').nth(1).textContent()).toMatch(/^key_/);
    expect(await page.getByLabel('From version').locator('option').allTextContents()).toEqual(['Version 2', 'Version 1']);

    // Defaults to the previous version against the newest.
    const before = page.getByRole('figure', { name: 'Version 1' });
    const after = page.getByRole('figure', { name: 'Version 2' });
    expect(await before.locator('del').allTextContents()).toEqual(['warm', 'use']);
    expect(await after.locator('ins').allTextContents()).toEqual(['blunt', 'employ']);
    await screenshot(page, 'history', { docs: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Restore version 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore version 1?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await api(`/v1/personas/${id}/versions`)).length).toBe(2);

    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await dialog.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByText('Restored version 1 as version 3.').waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.locator('th').allTextContents()).toEqual(['3', '2', '1']);
    expect(await api(`/v1/personas/${id}`)).toEqual({ id, name: 'Historian', attributes: { tone: 'warm', vocabulary: { utilize: 'use' } } });
  });

  it('moves, adds and removes labels', async () => {
    const id = await versionedPersona('Labeller');
    await page.goto(`${server.url}/studio/#/personas/${id}/history`);
    await page.getByLabel('New label').fill('Production!');
    await page.getByRole('button', { name: 'Set label' }).click();
    await page.getByText('A label is 1-40 lowercase letters, digits or "-".').waitFor();

    await page.getByLabel('New label').fill('production');
    await page.getByLabel('Points at').selectOption('2');
    await page.getByRole('button', { name: 'Set label' }).click();
    await page.getByText('production now points at version 2.').waitFor();
    expect(await labelsOf(id)).toEqual({ production: 2 });

    // Rolling back is moving the label.
    await page.getByLabel(/production → version 2; move to/).selectOption('1');
    await page.getByRole('button', { name: 'Move production', exact: true }).click();
    await page.getByText('production now points at version 1.').waitFor();
    expect(await labelsOf(id)).toEqual({ production: 1 });

    // Changed elsewhere since the view loaded: nothing is done, the view says so and reloads.
    await api(`/v1/personas/${id}`, 'PATCH', { name: 'Labeller, renamed' });
    await page.getByLabel(/production → version 1; move to/).selectOption('2');
    await page.getByRole('button', { name: 'Move production', exact: true }).click();
    await page.getByText('This persona changed since you opened its history, so nothing was done.', { exact: false }).waitFor();
    expect(await labelsOf(id)).toEqual({ production: 1 });
    const rows = page.getByRole('table', { name: 'Versions, newest first' }).locator('tbody tr');
    await rows.nth(2).waitFor();
    await api(`/v1/personas/${id}`, 'PATCH', { name: 'Labeller, renamed again' });
    await page.getByRole('button', { name: 'Remove production', exact: true }).click();
    await rows.nth(3).waitFor();
    await page.getByText('This persona changed since you opened its history, so nothing was done.', { exact: false }).waitFor();
    expect(await labelsOf(id)).toEqual({ production: 1 });
    await page.getByRole('button', { name: 'Remove production', exact: true }).click();
    await page.getByText('Removed production.').waitFor();
    expect(await labelsOf(id)).toEqual({});
  });

  it('compares two versions of one persona on the same text', async () => {
    const id = await versionedPersona('Two voices');
    await page.goto(`${server.url}/studio/#/compare`);
    await page.getByLabel('First persona').selectOption(id);
    await page.getByLabel('Second persona').selectOption(id);
    await page.getByLabel('First version').selectOption('1');
    await page.getByLabel('Second version').selectOption('2');
    await page.getByLabel('Sample text').fill('We utilize it.');
    await page.getByLabel('Provider', { exact: true }).selectOption('rules');
    await page.getByRole('button', { name: 'Compare' }).click();
    const first = page.getByRole('figure', { name: 'Two voices, version 1' });
    const second = page.getByRole('figure', { name: 'Two voices, version 2' });
    await first.locator('.diff-text').waitFor();
    await second.locator('.diff-text').waitFor();
    expect(await first.locator('.diff-text').textContent()).toBe('We use it.');
    expect(await second.locator('.diff-text').textContent()).toBe('We employ it.');
  });
});
