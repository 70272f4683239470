/**
 * Studio: the Webhooks page against a real server and a receiver on loopback
 * (WEBHOOK_ALLOWED_HOSTS=127.0.0.1). An endpoint is added with its secret shown once (and that
 * secret verifies what arrives), a test event is sent and its delivery seen delivered, a refused
 * URL shows the service's 400, an endpoint is edited, enabled, rotated and deleted, a failing
 * delivery is seen pending and then failed, deliveries are paged through the Link header, and
 * the page holds at 1,280 and 390 px.
 */
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { chromiumAvailable, focused, screenshot, seriousAccessibilityViolations, tabTo, useSignedInStudio } from './studio-browser.js';

const POLL = { timeout: 15_000 };

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  disabled: boolean;
}

const verify = (secret: string, delivery: ReceivedDelivery) =>
  new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };

/** The row of the newest delivery of `type` in the deliveries table. */
const deliveryRow = (page: Page, type: string) => page.locator('table.deliveries-table tbody tr', { hasText: type }).first();

describe.skipIf(!chromiumAvailable)('Persona Studio webhooks', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let page: Page;

  const api = async (path: string, method = 'GET', json?: unknown) => {
    const res = await server.request(path, { method, json });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.status === 204 ? undefined : res.json();
  };
  const endpoints = async () => (await api('/v1/webhooks')) as Endpoint[];
  const createEndpoint = async (path: string, events: string[] = ['*']) =>
    (await api('/v1/webhooks', 'POST', { url: `${receiver.origin}${path}`, events })) as Endpoint & { secret: string };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // One retry a second after the first attempt, so a failing delivery ends within the test.
    server = await startTestServer({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1s' } });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });
  useSignedInStudio(() => server, (opened) => {
    page = opened.page;
  });

  it('adds an endpoint, shows its secret once, sends a test event and sees it delivered; fits 1,280 and 390 px', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
    await page.getByText('No endpoints yet: add one below.').waitFor();
    const url = `${receiver.origin}/studio-hook`;
    await page.getByLabel('URL', { exact: true }).fill(url);
    await page.getByLabel('Description (optional)').fill('chat-ops channel');
    await page.getByLabel(/^persona\.created:/).check();
    await page.getByLabel(/^label\.moved:/).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();

    const dialog = page.getByRole('dialog', { name: 'Endpoint added: copy its signing secret now' });
    await dialog.waitFor();
    const secret = (await dialog.getByTestId('webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    await dialog.getByText('It will not be shown again.').waitFor();
    await dialog.getByRole('button', { name: 'Copy secret' }).click();
    await dialog.getByText('Copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    // Focus goes back where the keyboard left it.
    await expect.poll(() => focused(page)).toBe('button||Add endpoint');
    expect(await page.content()).not.toContain(secret.slice(6));

    const [created] = await endpoints();
    expect(created).toMatchObject({ url, events: ['persona.created', 'label.moved'], description: 'chat-ops channel', disabled: false });
    const item = page.getByRole('list', { name: 'Endpoints' }).getByRole('listitem');
    expect(await item.count()).toBe(1);
    expect(await item.textContent()).toContain('persona.created, label.moved');
    expect(await item.textContent()).toContain('chat-ops channel');
    // The form starts over for the next endpoint.
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe('');
    await screenshot(page, 'webhooks-list');

    // The secret shown is the one deliveries are signed with.
    await api('/v1/personas', 'POST', { name: 'Hooked voice' });
    await expect.poll(() => receiver.ofType('persona.created').length, POLL).toBe(1);
    expect(verify(secret, receiver.ofType('persona.created')[0]!)).toMatchObject({ type: 'persona.created', data: { name: 'Hooked voice' } });

    await item.getByRole('link', { name: url }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await deliveryRow(page, 'persona.created').getByText('delivered').waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued: its delivery is listed below.').waitFor();
    // Read again by the page itself while the delivery is due: nothing here reloads it.
    const row = deliveryRow(page, 'webhook.test');
    await row.getByText('delivered', { exact: true }).waitFor({ timeout: POLL.timeout });
    // Said in words too, for a screen reader.
    await expect.poll(() => page.getByTestId('deliveries-announcement').textContent()).toBe('webhook.test delivered');
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(1, 5)).toEqual(['delivered', '1', '200', '–']);
    const [test] = receiver.ofType('webhook.test');
    expect(verify(secret, test!)).toMatchObject({ type: 'webhook.test', data: { webhookId: created!.id } });
    expect(cells[0]).toContain(test!.headers['webhook-id']);

    await screenshot(page, 'webhooks-1280', { docs: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 1650 });
    await page.getByRole('heading', { name: 'Webhook endpoint' }).evaluate('(heading) => heading.scrollIntoView()');
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
    // Deliveries as labelled blocks at this width, still a table to a screen reader, and no wider than the screen.
    const table = page.getByRole('table');
    expect(await table.getByRole('row').count()).toBe(3);
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Event', 'Status', 'Attempts', 'Last status', 'Last error', 'Next attempt', 'Created']);
    const box = (await table.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await screenshot(page, 'webhooks-390', { docs: true });
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('shows the service’s 400 beside the URL it refuses, and adds nothing', async () => {
    const before = (await endpoints()).length;
    await page.goto(`${server.url}/studio/#/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
    const field = page.getByLabel('URL', { exact: true });
    await page.getByLabel('All events (*)', { exact: false }).check();
    for (const url of ['http://example.com/hook', 'https://localhost:8443/hook']) {
      const refused = await server.request('/v1/webhooks', { method: 'POST', json: { url, events: ['*'] } });
      expect(refused.status).toBe(400);
      const { message } = (await refused.json()) as { message: string };
      await field.fill(url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const alert = page.getByRole('alert');
      await alert.getByText(message.slice(message.indexOf(' ') + 1), { exact: false }).waitFor();
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await field.getAttribute('aria-describedby')).toContain((await alert.getAttribute('id'))!);
    }
    expect(await page.getByRole('alert').textContent()).toMatch(/^Host "localhost" is a loopback name/);
    await field.fill('http://example.com/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').getByText('URL must use https (http only for a host in WEBHOOK_ALLOWED_HOSTS)', { exact: true }).waitFor();
    expect(await endpoints()).toHaveLength(before);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('edits an endpoint by keyboard, enables it after it was disabled, rotates its secret and deletes it after a confirmation', async () => {
    const endpoint = await createEndpoint('/edited', ['persona.deleted']);
    await api(`/v1/webhooks/${endpoint.id}`, 'PATCH', { disabled: true });
    await page.goto(`${server.url}/studio/#/webhooks`);
    const item = page.getByRole('listitem').filter({ hasText: `${receiver.origin}/edited` });
    await item.getByText('disabled', { exact: true }).waitFor();
    await item.getByRole('link').click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await expect.poll(() => focused(page)).toMatch(/^h2\|webhook-heading\|/);
    expect(await page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Enabled: new events are sent again.').waitFor();
    expect(((await api(`/v1/webhooks/${endpoint.id}`)) as Endpoint).disabled).toBe(false);
    expect(await page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(false);

    // Settings by keyboard: all events, a description, another path.
    const settings = page.getByRole('region', { name: 'Settings' });
    await tabTo(page, /^input\|.*\|URL$/);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(`${receiver.origin}/moved`);
    await page.keyboard.press('Tab');
    await page.keyboard.type('deploy bot');
    await tabTo(page, /^input\|.*\|All events \(\*\)/);
    await page.keyboard.press('Space');
    expect(await settings.getByLabel(/^persona\.created:/).isDisabled()).toBe(true);
    expect(await settings.getByLabel(/^persona\.created:/).isChecked()).toBe(true);
    await tabTo(page, /^button\|\|Save changes$/);
    await page.keyboard.press('Enter');
    await page.getByText('Changes saved.').waitFor();
    expect(await api(`/v1/webhooks/${endpoint.id}`)).toMatchObject({ url: `${receiver.origin}/moved`, events: ['*'], description: 'deploy bot' });

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const asked = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await asked.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('dialog', { name: 'Secret rotated: copy the new secret now' });
    const secret = (await shown.getByTestId('webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);
    await shown.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await deliveryRow(page, 'webhook.test').getByText('delivered', { exact: true }).waitFor({ timeout: POLL.timeout });
    const delivered = receiver.received.filter((delivery) => delivery.headers['webhook-id'] !== undefined && delivery.event.data.webhookId === endpoint.id);
    expect(delivered).toHaveLength(1);
    // Both secrets sign during the rotation's grace.
    expect(String(delivered[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(secret, delivered[0]!).type).toBe('webhook.test');
    expect(verify(endpoint.secret, delivered[0]!).type).toBe('webhook.test');

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    // Cancel has focus first: Enter right away deletes nothing.
    await expect.poll(() => focused(page)).toBe('button||Cancel');
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText(`The endpoint ${receiver.origin}/moved is deleted.`).waitFor();
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
    expect((await server.request(`/v1/webhooks/${endpoint.id}`)).status).toBe(404);
  });

  it('shows a failing delivery pending with its error and next attempt, then failed after its retry', async () => {
    const endpoint = await createEndpoint('/failing', ['persona.updated']);
    receiver.answerWith(500, 500);
    await page.goto(`${server.url}/studio/#/webhooks/${endpoint.id}`);
    await page.getByText('Nothing sent yet.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const row = deliveryRow(page, 'webhook.test');
    await row.getByText('pending', { exact: true }).waitFor();
    expect(await row.locator('td[data-label="Next attempt"] time').count()).toBe(1);
    // Read again by the page every few seconds while the retry is due.
    await row.getByText('failed', { exact: true }).waitFor({ timeout: POLL.timeout });
    await expect.poll(() => page.getByTestId('deliveries-announcement').textContent()).toBe('webhook.test failed: answered 500');
    const [failed] = (await api(`/v1/webhooks/${endpoint.id}/deliveries`)) as { status: string; attempts: number; lastStatusCode: number; lastError: string }[];
    expect(failed).toMatchObject({ status: 'failed', attempts: 2, lastStatusCode: 500, lastError: 'answered 500' });
    expect((await row.locator('td').allTextContents()).slice(1, 6)).toEqual(['failed', '2', '500', 'answered 500', '–']);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('reads deliveries a page at a time, following the Link header', async () => {
    const endpoint = await createEndpoint('/paged', ['persona.updated']);
    const sent: string[] = [];
    for (let count = 0; count < 23; count++) sent.push(((await api(`/v1/webhooks/${endpoint.id}/test`, 'POST')) as { id: string }).id);
    await expect.poll(async () => ((await api(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`)) as { status: string }[]).filter((d) => d.status === 'delivered').length, POLL).toBe(23);
    await page.goto(`${server.url}/studio/#/webhooks/${endpoint.id}`);
    const rows = page.locator('table.deliveries-table tbody tr');
    await page.getByRole('button', { name: 'Load more' }).waitFor();
    expect(await rows.count()).toBe(20);
    await page.getByRole('button', { name: 'Load more' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => rows.count()).toBe(23);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    // The button gone with the last page, focus is on the table, not back at the page's start.
    await expect.poll(() => focused(page)).toMatch(/^div\|\|Deliveries table$/);
    expect(await rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-delivery')))).toEqual(sent.reverse());
  });

  it('says so when the account has its 20 endpoints, and when an address names no endpoint', async () => {
    const existing = (await endpoints()).length;
    const added: string[] = [];
    while (existing + added.length < 20) added.push((await createEndpoint(`/cap-${added.length}`)).id);
    try {
      const refused = await server.request('/v1/webhooks', { method: 'POST', json: { url: `${receiver.origin}/one-too-many`, events: ['*'] } });
      expect(refused.status).toBe(409);
      const { message } = (await refused.json()) as { message: string };
      await page.goto(`${server.url}/studio/#/webhooks`);
      await page.getByLabel('URL', { exact: true }).fill(`${receiver.origin}/one-too-many`);
      await page.getByLabel('All events (*)', { exact: false }).check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      // The service's words, as a sentence.
      await page.getByRole('alert').getByText(`${message[0]!.toUpperCase()}${message.slice(1)}.`, { exact: true }).waitFor();
      expect(await endpoints()).toHaveLength(20);
    } finally {
      for (const id of added) await api(`/v1/webhooks/${id}`, 'DELETE');
    }
    await page.goto(`${server.url}/studio/#/webhooks/${added[0]}`);
    await page.getByRole('alert').getByText('There is no such webhook endpoint; someone may have deleted it.').waitFor();
    await page.getByRole('link', { name: 'All webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
  });

  it('offers Webhooks only to a key that manages them, and tells a key without the scope why', async () => {
    const reader = ((await api('/v1/keys', 'POST', { name: 'reader', scopes: ['personas:read'] })) as { secret: string }).secret;
    const admin = ((await api('/v1/keys', 'POST', { name: 'hooks', scopes: ['personas:read', 'webhooks:admin'] })) as { secret: string }).secret;
    const refused: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 403) refused.push(response.url());
    });
    await page.getByRole('link', { name: 'Webhooks' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').fill(reader);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your personas' }).waitFor();
    await page.getByRole('link', { name: 'Keys' }).waitFor();
    await page.goto(`${server.url}/studio/#/webhooks`);
    await page.getByText('This key lacks the scope “webhooks:admin”. Ask someone with a key that has it to manage webhook endpoints.').waitFor();
    expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
    expect(refused).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').fill(admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('list', { name: 'Endpoints' }).waitFor();
  });
});
