/** Studio export and import: the CLI's file format, matched by id (only), else by name, else created; updates as careful as the CLI's. */
import { readFileSync } from 'node:fs';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, useSignedInStudio, type StudioPage } from './studio-browser.js';

type Persona = { id: string; name: string; attributes: Record<string, unknown> };
const file = (name: string, content: unknown) => ({ name, mimeType: 'application/json', buffer: Buffer.from(typeof content === 'string' ? content : JSON.stringify(content)) });

describe.skipIf(!chromiumAvailable)('Persona Studio export and import', () => {
  let server: TestServer;
  let studio: StudioPage;
  let page: Page;

  const create = async (name: string, attributes: Record<string, unknown>): Promise<Persona> =>
    (await server.request('/v1/personas', { method: 'POST', json: { name, attributes } })).json();
  const list = async (): Promise<Persona[]> => (await server.request('/v1/personas')).json();
  const downloaded = async (download: Download) => ({ name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    studio = opened;
    page = opened.page;
  });

  it('exports one persona as the CLI does: {id, name, attributes}, two-space indent, trailing newline', async () => {
    const persona = await create('Café Crème', { tone: 'warm', nested: { b: 1, a: [true] } });
    await page.goto(`${server.url}/studio/#/personas/${persona.id}`);
    await page.getByRole('heading', { name: 'Café Crème', level: 2 }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
    const { name, text } = await downloaded(download);
    expect(name).toBe(`cafe-creme.${persona.id.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(-8)}.json`);
    expect(text).toBe(`${JSON.stringify(persona, null, 2)}\n`);
  });

  it('exports all personas as one array', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Your personas' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export all' }).click()]);
    const { name, text } = await downloaded(download);
    expect(name).toBe('personas.json');
    expect(text).toBe(`${JSON.stringify(await list(), null, 2)}\n`);
  });

  it('imports files: by id, else by name, else new; shows the plan first', async () => {
    const byId = await create('Id match', { tone: 'old' });
    const byName = await create('Name match', { tone: 'old' });
    const untouched = await create('Untouched', { tone: 'same' });
    await page.reload();
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import personas' });
    await dialog.getByLabel('Persona files (JSON)').setInputFiles([
      file('by-id.json', { id: byId.id, name: 'Id match (renamed)', attributes: { tone: 'new' } }),
      file('by-name.json', { name: 'Name match', attributes: { tone: 'new', extra: [1] } }),
      file('more.json', [{ name: 'Brand new', attributes: { tone: 'fresh' } }, untouched]),
    ]);
    const rows = dialog.getByRole('table', { name: 'What the import will do' }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.allTextContents()).toEqual([
      'by-id.jsonUpdate “Id match” (renamed “Id match (renamed)”)',
      'by-name.jsonUpdate “Name match”',
      'more.json [1]Create “Brand new”',
      'more.json [2]No change to “Untouched”',
    ]);
    await dialog.getByRole('button', { name: 'Import 3 changes' }).click();
    await dialog.getByText('Imported 3 personas.').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('link', { name: 'Brand new' }).waitFor();

    const after = await list();
    expect(after.find((p) => p.id === byId.id)).toEqual({ id: byId.id, name: 'Id match (renamed)', attributes: { tone: 'new' } });
    expect(after.find((p) => p.id === byName.id)).toEqual({ id: byName.id, name: 'Name match', attributes: { tone: 'new', extra: [1] } });
    expect(after.find((p) => p.name === 'Brand new')?.attributes).toEqual({ tone: 'fresh' });
    expect(after.find((p) => p.id === untouched.id)).toEqual(untouched);
  });

  it('an edit made elsewhere between the plan and the import is kept: the update is refused, not applied over it', async () => {
    const persona = await create('Edited elsewhere', { tone: 'old' });
    await page.reload();
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import personas' });
    await dialog.getByLabel('Persona files (JSON)').setInputFiles([file('mine.json', { id: persona.id, name: 'Edited elsewhere', attributes: { tone: 'from the file' } })]);
    await dialog.getByText('Update “Edited elsewhere”').waitFor();
    const patched = await server.request(`/v1/personas/${persona.id}`, { method: 'PATCH', json: { attributes: { tone: 'concurrent edit' } } });
    expect(patched.status).toBe(200);
    await dialog.getByRole('button', { name: 'Import 1 change' }).click();
    await dialog.getByRole('alert').getByText(/Imported 0 of 1, then mine\.json failed: .*changed elsewhere/).waitFor();
    expect((await list()).find((p) => p.id === persona.id)?.attributes).toEqual({ tone: 'concurrent edit' });
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('the update sends If-Match with the ETag it just read', async () => {
    const persona = await create('If-Match sent', { tone: 'old' });
    await page.reload();
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import personas' });
    await dialog.getByLabel('Persona files (JSON)').setInputFiles([file('mine.json', { id: persona.id, name: 'If-Match sent', attributes: { tone: 'new' } })]);
    await dialog.getByText('Update “If-Match sent”').waitFor();
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.method() === 'PATCH' && r.url().endsWith(`/v1/personas/${persona.id}`)),
      dialog.getByRole('button', { name: 'Import 1 change' }).click(),
    ]);
    expect(request.headers()['if-match']).toBe('"1"');
    await dialog.getByText('Imported 1 persona.').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('a file whose id is not on the server is a problem, never an update of another persona with its name', async () => {
    const namesake = await create('Namesake', { tone: 'keep me' });
    await page.reload();
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import personas' });
    const missing = '0198c3a4-0000-7000-8000-000000000000';
    await dialog.getByLabel('Persona files (JSON)').setInputFiles([file('stale.json', { id: missing, name: 'Namesake', attributes: { tone: 'overwrite' } })]);
    await dialog.getByText(`Problem: id ${missing} is not on the server`, { exact: false }).waitFor();
    expect(await dialog.getByRole('button', { name: /^Import \d/ }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await list()).find((p) => p.id === namesake.id)).toEqual(namesake);
  });

  it('imports nothing while any file has a problem', async () => {
    const before = await list();
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import personas' });
    await dialog.getByLabel('Persona files (JSON)').setInputFiles([
      file('good.json', { name: 'Would be new', attributes: {} }),
      file('broken.json', '{ "name": '),
      file('extra.json', { name: 'X', attributes: {}, createdAt: 'yesterday' }),
    ]);
    await dialog.getByText('Nothing can be imported until the files with problems are fixed or left out.').waitFor();
    expect(await dialog.getByText(/broken\.json/).count()).toBe(1);
    await dialog.getByText('Problem: has unknown field "createdAt"; a persona has only id, name, attributes and samples').waitFor();
    expect(await dialog.getByRole('button', { name: /^Import \d/ }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await list()).toEqual(before);
  });
});
