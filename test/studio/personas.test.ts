/** Studio persona authoring: the form, the JSON view, saving with If-Match, conflicts, deleting. */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, focused, useSignedInStudio, screenshot, type StudioPage, tabTo } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio personas', () => {
  let server: TestServer;
  let studio: StudioPage;
  let page: Page;

  const createViaApi = async (name: string, attributes: Record<string, unknown>) =>
    (await server.request('/v1/personas', { method: 'POST', json: { name, attributes } })).json() as Promise<{ id: string }>;
  const fetchViaApi = async (id: string) => (await server.request(`/v1/personas/${id}`)).json();
  const openPersona = async (id: string, name: string) => {
    await page.goto(`${server.url}/studio/#/personas/${id}`);
    await page.getByRole('heading', { name, level: 2 }).waitFor();
  };
  const save = async (expected: RegExp) => {
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(expected).waitFor();
  };

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

  it('creates a persona through the form, with every kind of control', async () => {
    await page.getByRole('link', { name: 'New persona' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Friendly support');
    await page.getByLabel('Tone', { exact: true }).fill('warm, direct');
    await page.getByLabel('Formality', { exact: true }).fill('casual');
    await page.getByLabel('Personality traits').fill('curious\nkind\n');
    await page.getByLabel('Maximum words').fill('120');
    await page.getByLabel('Emoji', { exact: true }).selectOption({ label: 'Never (any emoji is removed)' });
    await page.getByRole('button', { name: 'Add a term' }).click();
    await page.getByLabel('Instead of, row 1').fill('utilize');
    await page.getByLabel('Use, row 1').fill('use');
    await page.getByLabel('Words and phrases to avoid').fill('synergy\nleverage');
    await page.getByLabel('Brand spellings').fill('GitHub');
    await page.getByLabel('Sign-off', { exact: true }).fill('Cheers,\nThe Acme team');
    await page.getByRole('button', { name: 'Add an example' }).click();
    await page.getByLabel('Before', { exact: true }).fill('Dear customer');
    await page.getByLabel('After', { exact: true }).fill('Hi there');
    await save(/Created “Friendly support”/);
    await screenshot(page, 'editor', { docs: true });

    const [persona] = await (await server.request('/v1/personas')).json();
    expect(persona.name).toBe('Friendly support');
    expect(persona.attributes).toEqual({
      tone: 'warm, direct',
      formality: 'casual',
      personality: ['curious', 'kind'],
      maxWords: 120,
      emoji: false,
      vocabulary: { utilize: 'use' },
      avoid: ['synergy', 'leverage'],
      casing: ['GitHub'],
      signOff: 'Cheers,\nThe Acme team',
      examples: [{ before: 'Dear customer', after: 'Hi there' }],
    });
    // The new persona is in the list and its page is the current one.
    expect(await page.getByRole('link', { name: 'Friendly support' }).getAttribute('aria-current')).toBe('page');
  });

  it('creates a persona through the JSON view, keeping keys the form does not know', async () => {
    await page.getByRole('link', { name: 'New persona' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Pirate');
    await page.getByLabel('Tone', { exact: true }).fill('salty');
    await page.getByLabel('JSON').check();
    await page.getByLabel('Attributes (JSON)').fill('{ "tone": "salty", "catchphrase": "Arr", "ship": { "name": "Pearl", "crew": [1, 2] } }');
    await page.getByLabel('Form').check();
    // The form shows the JSON's edit, and lists the keys it leaves alone.
    expect(await page.getByLabel('Tone', { exact: true }).inputValue()).toBe('salty');
    await page.getByText('Kept as they are: catchphrase, ship.').waitFor();
    await page.getByLabel('Formality', { exact: true }).fill('none');
    await save(/Created “Pirate”/);

    const personas = await (await server.request('/v1/personas')).json();
    const pirate = personas.find((persona: { name: string }) => persona.name === 'Pirate');
    expect(JSON.stringify(pirate.attributes)).toBe(JSON.stringify({ tone: 'salty', catchphrase: 'Arr', ship: { name: 'Pearl', crew: [1, 2] }, formality: 'none' }));
  });

  it('reports JSON that is not an object and will not save it', async () => {
    await page.getByRole('link', { name: 'New persona' }).click();
    await page.getByLabel('JSON').check();
    await page.getByLabel('Attributes (JSON)').fill('{ "tone": ');
    await page.getByText(/Not valid JSON yet/).waitFor();
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await page.getByLabel('Attributes (JSON)').fill('[1, 2]');
    await page.getByText('Attributes must be a JSON object: { "key": value, … }').waitFor();
  });

  it('edits and saves an existing persona without touching other keys or their order', async () => {
    const { id } = await createViaApi('Edit me', { zeta: 1, tone: 'calm', audience: ['devs', 'ops'], tags: { a: true }, avoid: 'synergy' });
    await openPersona(id, 'Edit me');
    expect(await page.getByLabel('Words and phrases to avoid').inputValue()).toBe('synergy');
    // A list where the form expects text: shown as untouchable rather than flattened.
    await page.getByText('“audience” holds a value this form cannot show without changing it; it is kept as it is.').waitFor();
    await page.getByLabel('Tone', { exact: true }).fill('bold');
    await page.getByLabel('Name', { exact: true }).fill('Edited');
    await page.getByText('Unsaved changes').waitFor();
    await save(/Saved “Edited”/);
    const saved = await fetchViaApi(id);
    expect(saved.name).toBe('Edited');
    expect(JSON.stringify(saved.attributes)).toBe(JSON.stringify({ zeta: 1, tone: 'bold', audience: ['devs', 'ops'], tags: { a: true }, avoid: 'synergy' }));
  });

  it('flags a value the service ignores beside its field, and saving names what to fix', async () => {
    const { id } = await createViaApi('Old shapes', { tone: 'warm', maxWords: 5 });
    // Stored before shapes were checked: attributes are kept verbatim, so such rows exist.
    await server.storage.db.updateTable('personas').set({ attributes: JSON.stringify({ tone: 'warm', maxWords: '120' }) }).where('id', '=', id).execute();
    await openPersona(id, 'Old shapes');
    const shape = 'attributes.maxWords must be a whole number of at least 1 (for example 120) or null';
    await page.getByText(`“maxWords” holds a value the service ignores and will not save: ${shape}.`).waitFor();
    await page.getByLabel('Tone', { exact: true }).fill('bold');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#attributes-error').getByText('Attributes.maxWords must be a whole number of at least 1 (for example 120) or null.').waitFor();
    expect((await fetchViaApi(id)).attributes).toEqual({ tone: 'warm', maxWords: '120' });
  });

  it('shows a validation error from the API next to the field it concerns', async () => {
    await page.getByRole('link', { name: 'New persona' }).click();
    await page.getByLabel('Name', { exact: true }).fill('x'.repeat(201));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const error = page.locator('#persona-name-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Name must be a non-empty string of at most 200 characters.');
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-describedby')).toContain('persona-name-error');

    await page.getByLabel('Name', { exact: true }).fill('Huge');
    await page.getByLabel('JSON').check();
    await page.getByLabel('Attributes (JSON)').fill(JSON.stringify({ blob: 'x'.repeat(70 * 1024) }));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#attributes-json-error').getByText(/Attributes must be at most 64 KiB/).waitFor();
  });

  it('detects a conflicting change, then reloads theirs or overwrites with mine', async () => {
    const { id } = await createViaApi('Shared', { tone: 'calm', custom: { x: 1 } });
    await openPersona(id, 'Shared');
    await page.getByLabel('Tone', { exact: true }).fill('bold');
    await server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Changed elsewhere' } });

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Someone else changed this persona' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Reload their version' }).click();
    await page.getByRole('heading', { name: 'Changed elsewhere', level: 2 }).waitFor();
    expect(await page.getByLabel('Tone', { exact: true }).inputValue()).toBe('calm');

    await page.getByLabel('Tone', { exact: true }).fill('bold');
    await server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { attributes: { tone: 'theirs', custom: { x: 2 } } } });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.getByRole('button', { name: 'Overwrite with mine' }).click();
    await page.getByText(/Saved “Changed elsewhere”/).waitFor();
    expect(await fetchViaApi(id)).toEqual({ id, name: 'Changed elsewhere', attributes: { tone: 'bold', custom: { x: 1 } } });
  });

  it('deletes only after confirmation', async () => {
    const { id } = await createViaApi('Doomed', {});
    await openPersona(id, 'Doomed');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Doomed”?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await server.request(`/v1/personas/${id}`)).status).toBe(200);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete persona' }).click();
    await page.getByText('Deleted “Doomed”.').waitFor();
    await page.getByRole('heading', { name: 'Your personas' }).waitFor();
    expect(await page.getByRole('link', { name: 'Doomed' }).count()).toBe(0);
    expect((await server.request(`/v1/personas/${id}`)).status).toBe(404);
  });

  it('creates and saves with the keyboard alone', async () => {
    await tabTo(page, /^a\|\|New persona$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New persona' }).waitFor();
    expect(await focused(page)).toMatch(/^input\|persona-name\|/);
    await page.keyboard.type('Keyboard only');
    await page.keyboard.press('Enter');
    await page.getByText(/Created “Keyboard only”/).waitFor();

    await tabTo(page, /^input\|attr-tone\|/);
    await page.keyboard.type('brisk');
    await tabTo(page, /^button\|\|Save$/);
    await page.keyboard.press('Enter');
    await page.getByText(/Saved “Keyboard only”/).waitFor();
    const personas = await (await server.request('/v1/personas')).json();
    expect(personas.find((persona: { name: string }) => persona.name === 'Keyboard only').attributes).toEqual({ tone: 'brisk' });
  });
});
