/**
 * Where the studio puts things: the preview beside the editor on a wide screen and under it on a
 * narrow one, the stream checkbox on its label's line, and personas that share a name told apart
 * in the list.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, launchChromium, openStudio, signIn } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio layout', () => {
  let server: TestServer;
  let browser: Browser;
  let personaId: string;

  const create = async (name: string) =>
    ((await (await server.request('/v1/personas', { method: 'POST', json: { name, attributes: { tone: 'warm' } } })).json()) as { id: string }).id;
  /** A signed-in page at this width, showing the persona; closed by the caller. */
  const personaAt = async (width: number) => {
    const studio = await openStudio(browser, server, { width, height: 900 });
    await signIn(studio.page, server.key);
    await studio.page.goto(`${server.url}/studio/#/personas/${personaId}`);
    await studio.page.getByRole('heading', { name: 'Preview', exact: true }).waitFor();
    return studio;
  };
  const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    personaId = await create('Support');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('puts the preview beside the editor from 1,200 px, under it below that', async () => {
    const wide = await personaAt(1280);
    const form = await box(wide.page, '.editor-and-preview > section:not(.preview) form');
    const preview = await box(wide.page, '.editor-and-preview > .preview');
    expect(preview.x).toBeGreaterThanOrEqual(form.x + form.width);
    expect(Math.abs(preview.y - form.y)).toBeLessThan(150);
    expect(wide.problems).toEqual([]);
    await wide.close();

    const narrow = await personaAt(1100);
    const stackedForm = await box(narrow.page, '.editor-and-preview > section:not(.preview) form');
    const stackedPreview = await box(narrow.page, '.editor-and-preview > .preview');
    expect(stackedPreview.y).toBeGreaterThanOrEqual(stackedForm.y + stackedForm.height);
    expect(Math.abs(stackedPreview.x - stackedForm.x)).toBeLessThan(30);
    await narrow.close();
  });

  it('puts the stream checkbox on the line of its label, before it', async () => {
    const studio = await personaAt(1280);
    const checkbox = (await studio.page.getByLabel('Stream the answer as it is written (no repair call)').boundingBox())!;
    const label = await box(studio.page, 'label[for="preview-stream"]');
    expect(checkbox.x + checkbox.width).toBeLessThanOrEqual(label.x);
    // Vertically within the label's first line, not above it.
    expect(checkbox.y).toBeGreaterThanOrEqual(label.y - checkbox.height);
    expect(checkbox.y).toBeLessThan(label.y + label.height);
    await studio.close();
  });

  it('tells apart personas that share a name by the end of their id', async () => {
    const twin = await create('Support');
    const other = await create('Sales');
    const studio = await personaAt(1280);
    const list = studio.page.getByRole('navigation', { name: 'Personas' });
    const links = await list.getByRole('link').allTextContents();
    expect(links).toContain(`Support · ${personaId.slice(-6)}`);
    expect(links).toContain(`Support · ${twin.slice(-6)}`);
    expect(links).toContain('Sales');
    expect(await list.locator(`a[href$="${other}"] .persona-id`).count()).toBe(0);
    await studio.close();
  });
});
