/**
 * Issue 29, finding 6, in the studio: it reads streams with the SDK's bounded parser, so a
 * hostile or broken answer (a line that never ends, an event that is not JSON) ends the preview
 * with the usual error, neither freezing the tab nor throwing an uncaught error.
 *
 * And it reads a stream's events as the SDK does: only delta, done and error, each checked
 * for the types it needs. A malformed one ends the preview with the usual error (no uncaught
 * TypeError), an unknown one is skipped.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { chromiumAvailable, useSignedInStudio } from './studio-browser.js';

describe.skipIf(!chromiumAvailable)('Persona Studio preview against a hostile or malformed stream', () => {
  let server: TestServer;
  let page: Page;
  let personaId: string;

  beforeAll(async () => {
    server = await startTestServer();
    personaId = (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Streamed', attributes: {} } })).json()).id;
  });
  afterAll(async () => {
    await server?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    page = opened.page;
  });

  async function streamWith(body: string): Promise<void> {
    // The answer stands in for the service's: the network layer answers /v1/refine itself.
    await page.route('**/v1/refine', (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body }));
    await page.goto(`${server.url}/studio/#/personas/${personaId}`);
    await page.getByLabel('Sample text').fill('Hello there.');
    await page.getByLabel('Provider', { exact: true }).selectOption('rules');
    await page.getByLabel('Stream the answer as it is written (no repair call)').check();
    await page.getByRole('button', { name: 'Refine' }).click();
  }

  it('an unterminated 20 MiB line: the preview reports a failed answer, promptly', async () => {
    const started = Date.now();
    await streamWith(`event: delta\ndata: ${'x'.repeat(20 * 1024 * 1024)}`);
    await page.getByRole('alert').getByText('The service failed (HTTP 502)').waitFor();
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 40_000);

  it('an event whose data is not a JSON object: reported the same way', async () => {
    await streamWith('event: delta\ndata: null\n\n');
    await page.getByRole('alert').getByText('The service failed (HTTP 502)').waitFor();
  });

  it('an error event whose message is not a string: the usual failure, nothing uncaught', async () => {
    await streamWith('event: error\ndata: {"message":5}\n\n');
    await page.getByRole('alert').getByText('The service failed (HTTP 500)').waitFor();
  });

  it('a done event whose response is not a string: reported as a failed answer', async () => {
    await streamWith('event: delta\ndata: {"text":"Hi"}\n\nevent: done\ndata: {"response":42}\n\n');
    await page.getByRole('alert').getByText('The service failed (HTTP 502)').waitFor();
  });

  it('a delta event without text: reported as a failed answer', async () => {
    await streamWith('event: delta\ndata: {"text":7}\n\n');
    await page.getByRole('alert').getByText('The service failed (HTTP 502)').waitFor();
  });

  it('an unknown event that is not JSON is skipped, as the SDK skips it', async () => {
    await streamWith('event: progress\ndata: 40%\n\nevent: delta\ndata: {"text":"Hi there."}\n\nevent: done\ndata: {"response":"Hi there."}\n\n');
    const refined = page.getByRole('figure', { name: 'Refined by Streamed' });
    await refined.waitFor();
    expect(await refined.locator('.diff-text').textContent()).toBe('Hi there.');
  });
});
