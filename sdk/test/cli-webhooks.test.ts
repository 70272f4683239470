/** `persona-refine webhooks …` against a real server delivering to a receiver on loopback. */
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import { PersonaRefine, verifyWebhook } from '../src/index.js';
import { runCli } from './helpers/cli.js';

const POLL = { timeout: 10_000 };

describe('persona-refine webhooks', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let client: PersonaRefine;
  const cli = (...argv: string[]) => runCli(argv, { cwd: tmpdir(), env: { PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url } });
  const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    server = await startTestServer({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('create prints the secret once, as the last line, with a warning; list, get and update never show it', async () => {
    const created = await cli('webhooks', 'create', '--url', `${receiver.origin}/cli`, '--events', 'persona.created,label.moved', '--description', 'deploys');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const id = /^created webhook (wh_[0-9a-f]{32}) for /.exec(created.stdout)![1]!;
    expect(created.stdout).toBe(
      `created webhook ${id} for ${receiver.origin}/cli (persona.created,label.moved); the secret is shown only now: store it where your receiver reads it:\n${lastLine(created.stdout)}\n`,
    );
    const secret = lastLine(created.stdout);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const listed = await cli('webhooks', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^id\s+state\s+events\s+url\s+description$/);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  enabled  persona\\.created,label\\.moved  ${receiver.origin}/cli  deploys$`, 'm'));

    expect((await cli('webhooks', 'get', id)).stdout).toBe(
      [
        `id           ${id}`,
        `url          ${receiver.origin}/cli`,
        'events       persona.created,label.moved',
        'description  deploys',
        'state        enabled',
        `created      ${(await client.webhooks.get(id)).createdAt}`,
        '',
      ].join('\n'),
    );
    const updated = await cli('webhooks', 'update', id, '--events', '*', '--no-description', '--disable');
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain('events       *\n');
    expect(updated.stdout).toContain('description  -\n');
    expect(updated.stdout).toContain('state        disabled (persona-refine webhooks update ID --enable sends again)\n');
    expect(await client.webhooks.get(id)).toMatchObject({ events: ['*'], description: null, disabled: true });
    expect((await cli('webhooks', 'update', id, '--enable')).stdout).toContain('state        enabled\n');

    for (const output of [listed.stdout, (await cli('webhooks', 'list', '--json')).stdout, (await cli('webhooks', 'get', id, '--json')).stdout]) {
      expect(output).not.toContain(secret.slice(6, 20));
    }
    expect((await cli('webhooks', 'delete', id)).stdout).toBe(`deleted webhook ${id}; its pending deliveries are dropped\n`);
    expect(await client.webhooks.list()).toEqual([]);
  });

  it('test sends a webhook.test that verifies; deliveries shows it delivered; rotate-secret prints the new secret last', async () => {
    const created = JSON.parse((await cli('webhooks', 'create', '--url', `${receiver.origin}/tested`, '--events', 'eval.failed', '--json')).stdout);
    expect(created.secret).toMatch(/^whsec_/);
    const tested = await cli('webhooks', 'test', created.id);
    expect(tested.code).toBe(0);
    const [, eventId, deliveryId] = /^sent a webhook\.test event \((msg_\w+)\) to wh_\w+: delivery (whd_\w+) is pending; /.exec(tested.stdout)!;
    await expect.poll(() => receiver.received.filter((d) => d.headers['webhook-id'] === eventId).length, POLL).toBe(1);
    const delivery = receiver.received.find((d) => d.headers['webhook-id'] === eventId)!;
    expect(await verifyWebhook(created.secret, delivery.headers, delivery.body)).toMatchObject({ type: 'webhook.test', data: { webhookId: created.id } });

    await expect.poll(async () => (await cli('webhooks', 'deliveries', created.id)).stdout, POLL).toMatch(
      new RegExp(`^\\S+Z  ${deliveryId}  ${eventId}  webhook\\.test  delivered         1   200  -$`, 'm'),
    );
    const table = (await cli('webhooks', 'deliveries', created.id)).stdout;
    expect(table.split('\n')[0]).toMatch(/^created\s+delivery\s+event\s+type\s+status\s+attempts\s+last\s+next attempt\s+last error$/);
    const json = JSON.parse((await cli('webhooks', 'deliveries', created.id, '--json')).stdout);
    expect(json).toEqual([expect.objectContaining({ id: deliveryId, eventId, status: 'delivered', attempts: 1, lastStatusCode: 200 })]);

    const rotated = await cli('webhooks', 'rotate-secret', created.id);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/^new secret for webhook wh_\w+; for 24 hours deliveries are signed with the old one too; the secret is shown only now/);
    expect(lastLine(rotated.stdout)).toMatch(/^whsec_/);
    expect(lastLine(rotated.stdout)).not.toBe(created.secret);
    const rotatedJson = await cli('webhooks', 'rotate-secret', created.id, '--json');
    expect(rotatedJson.stderr).toMatch(/the secret is shown only now/);
    expect(JSON.parse(rotatedJson.stdout).secret).toMatch(/^whsec_/);
    await client.webhooks.delete(created.id);
  });

  it('deliveries --limit reads only the newest N, --all every one', async () => {
    const hook = await client.webhooks.create({ url: `${receiver.origin}/many`, events: ['webhook.test'] });
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await client.webhooks.test(hook.id));
    const ids = (stdout: string) => JSON.parse(stdout).map((d: { id: string }) => d.id);
    expect(ids((await cli('webhooks', 'deliveries', hook.id, '--limit', '2', '--json')).stdout)).toEqual([sent[2]!.id, sent[1]!.id]);
    expect(ids((await cli('webhooks', 'deliveries', hook.id, '--all', '--json')).stdout)).toEqual(sent.map((d) => d.id).reverse());
    await client.webhooks.delete(hook.id);
    const empty = await client.webhooks.create({ url: `${receiver.origin}/none`, events: ['webhook.test'] });
    expect(await cli('webhooks', 'deliveries', empty.id)).toEqual({
      code: 0,
      stdout: '',
      stderr: `no deliveries to ${empty.id} in the last 30 days; persona-refine webhooks test ${empty.id} sends one\n`,
    });
    await client.webhooks.delete(empty.id);
    expect(await cli('webhooks', 'list')).toEqual({ code: 0, stdout: '', stderr: 'no webhook endpoints; add one with persona-refine webhooks create\n' });
  });

  it('wrong usage exits 2 before any call; a refusal by the server exits 1 with its message', async () => {
    /** `message` is the whole message, or its start when it ends with an ellipsis. */
    const usage = async (argv: string[], message: string) => {
      const result = await cli(...argv);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      if (message.endsWith('…')) expect(result.stderr.startsWith(`persona-refine: ${message.slice(0, -1)}`)).toBe(true);
      else expect(result.stderr).toBe(`persona-refine: ${message}\nRun persona-refine --help for usage.\n`);
    };
    await usage(['webhooks', 'create', '--events', '*'], 'webhooks create needs --url URL');
    await usage(['webhooks', 'create', '--url', 'https://example.com'], 'webhooks create needs --events, e.g. --events label.moved,eval.failed (or * for all)');
    await usage(['webhooks', 'create', '--url', 'https://example.com', '--events', 'label.moved,persona.renamed'], 'unknown event type "persona.renamed"; known: persona.created, persona.updated,…');
    await usage(['webhooks', 'update', 'wh_x'], 'webhooks update needs something to change: --url, --events, --description, --no-description, --enable or --disable');
    await usage(['webhooks', 'update', 'wh_x', '--enable', '--disable'], 'give --enable or --disable, not both');
    await usage(['webhooks', 'get'], 'webhooks get takes one webhook ID, got 0');
    await usage(['webhooks', 'deliveries', 'wh_x', '--limit', '0'], '--limit must be a whole number of at least 1, got "0"');
    await usage(['webhooks', 'rotate'], 'unknown webhooks command "rotate"');

    const refused = await cli('webhooks', 'create', '--url', 'http://example.com/hook', '--events', '*');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^persona-refine: .*url must use https \(http only for a host in WEBHOOK_ALLOWED_HOSTS\).* \(HTTP 400, request id \S+\)\n$/);
    expect((await cli('webhooks', 'delete', 'wh_unknown')).stderr).toMatch(/^persona-refine: webhook "wh_unknown" not found \(HTTP 404/);
    const reader = await client.keys.create({ name: 'reader', scopes: ['personas:read'] });
    const lacking = await runCli(['webhooks', 'list'], { cwd: tmpdir(), env: { PERSONA_REFINE_API_KEY: reader.secret, PERSONA_REFINE_URL: server.url } });
    expect(lacking.code).toBe(1);
    expect(lacking.stderr).toMatch(/this key lacks the scope "webhooks:admin"/);
  });

  it('is listed in --help', async () => {
    const { stdout } = await cli('--help');
    for (const command of ['list', 'create --url URL --events a,b|*', 'get ID', 'update ID', 'delete ID', 'test ID', 'rotate-secret ID', 'deliveries ID']) {
      expect(stdout).toContain(`webhooks ${command}`);
    }
  });
});
