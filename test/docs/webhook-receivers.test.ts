/**
 * docs/webhooks.md's two receivers run as written: the ```ts block of "A receiver in TypeScript"
 * (compiled by esbuild, run by node from the repository root, so `@persona-refine/sdk` resolves
 * to the SDK) and the ```python block of "A receiver in Python" (python3, standard library only),
 * each on a loopback port with its endpoint's secret. A real server (WEBHOOK_ALLOWED_HOSTS=127.0.0.1)
 * sends each a test event and the events of a persona's changes, during a secret rotation too;
 * each receiver prints the type and id of what it verified. Deliveries this test signs itself with
 * the `standardwebhooks` package show what each refuses: a body changed after signing, another
 * secret's signature, a stale timestamp, a missing header; and that a repeated id is handled once.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { transform } from 'esbuild';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonAvailable } from '../helpers/python.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { section } from './readme-shell.js';

const DOC = readFileSync('docs/webhooks.md', 'utf8');
const POLL = { timeout: 15_000 };

/** The one fenced block of `language` under the heading `title`. */
function block(title: string, language: string): string {
  const blocks = [...section(DOC, title).text.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
  expect(blocks, `"${title}" has one \`\`\`${language} block`).toHaveLength(1);
  return blocks[0]!;
}

interface Receiver {
  url: string;
  /** What it printed on stdout, line by line. */
  lines(): string[];
  stderr(): string;
  close(): void;
}

/** Starts a receiver with `PORT=0` and waits for its "listening on http://…" line. */
function startReceiver(command: string, args: string[], stdin: string | undefined, secret: string): Promise<Receiver> {
  const child: ChildProcessWithoutNullStreams = spawn(command, args, {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', WEBHOOK_SECRET: secret, HOST: '127.0.0.1', PORT: '0' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  child.stdin.end(stdin ?? '');
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the receiver exited (${code}) before it listened:\n${stdout}${stderr}`)));
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
      const listening = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
      if (listening)
        resolve({
          url: listening[1]!,
          lines: () => stdout.split('\n').filter((line) => line !== '' && !line.startsWith('listening on ')),
          stderr: () => stderr,
          close: () => void child.kill(),
        });
    });
  });
}

const RECEIVERS = [
  {
    name: 'TypeScript',
    run: true,
    start: async (secret: string) => {
      const { code } = await transform(block('A receiver in TypeScript', 'ts'), { loader: 'ts', format: 'esm', target: 'node20' });
      return startReceiver(process.execPath, ['--input-type=module'], code, secret);
    },
  },
  {
    name: 'Python',
    run: pythonAvailable,
    start: (secret: string) => startReceiver('python3', ['-X', 'dev', '-W', 'error', '-c', block('A receiver in Python', 'python')], undefined, secret),
  },
];

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { LOG_LEVEL: 'warn', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1h' } });
});
afterAll(() => server?.close());

describe.each(RECEIVERS)('docs/webhooks.md, the receiver in $name', ({ run, start }) => {
  let receiver: Receiver;
  let hookId: string;
  let secret: string;

  beforeAll(async () => {
    if (!run) return;
    // The secret comes with the endpoint, and the receiver's port with the receiver: the URL is set once both exist.
    const created = await server.request('/v1/webhooks', {
      method: 'POST',
      json: { url: 'http://127.0.0.1:9/not-yet', events: ['persona.created', 'label.moved'] },
    });
    expect(created.status).toBe(201);
    ({ id: hookId, secret } = await created.json());
    receiver = await start(secret);
    expect((await server.request(`/v1/webhooks/${hookId}`, { method: 'PATCH', json: { url: `${receiver.url}/persona-refine` } })).status).toBe(200);
  });

  afterAll(async () => {
    receiver?.close();
    if (hookId) await server.request(`/v1/webhooks/${hookId}`, { method: 'DELETE' });
  });

  const deliveries = async () => (await (await server.request(`/v1/webhooks/${hookId}/deliveries`)).json()) as Array<{ eventId: string; type: string; status: string; lastStatusCode: number | null }>;

  /** Each delivery answered 2xx, and the receiver printed exactly these, each once. */
  async function expectAllDelivered(): Promise<void> {
    await expect.poll(async () => (await deliveries()).filter((d) => d.status !== 'delivered'), POLL).toEqual([]);
    const sent = (await deliveries()).map((d) => `${d.type} ${d.eventId}`).sort();
    await expect.poll(() => receiver.lines().filter((line) => !line.startsWith(' ')).sort(), POLL).toEqual(sent);
  }

  it.skipIf(!run)('verifies the events a real server sends, and answers each 2xx at once', async () => {
    const test = await server.request(`/v1/webhooks/${hookId}/test`, { method: 'POST' });
    expect(test.status).toBe(202);
    const { eventId } = await test.json();
    await expect.poll(() => receiver.lines(), POLL).toContain(`webhook.test ${eventId}`);

    const persona = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Hooked', attributes: {} } })).json();
    await server.request(`/v1/personas/${persona.id}`, { method: 'PATCH', json: { attributes: { avoid: ['synergy'] } } });
    for (const version of [1, 2]) {
      expect((await server.request(`/v1/personas/${persona.id}/labels/staging`, { method: 'PUT', json: { version } })).status).toBe(200);
    }
    await expectAllDelivered();
    const lines = receiver.lines();
    expect(lines.filter((line) => line.startsWith('persona.created '))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith('label.moved '))).toHaveLength(2);
    expect(lines).toContain('  staging: version 1 → 2');
    expect(receiver.stderr()).not.toContain('refused');
  });

  it.skipIf(!run)('verifies with the old secret during a rotation: each delivery then carries two signatures', async () => {
    const rotated = await (await server.request(`/v1/webhooks/${hookId}/rotate-secret`, { method: 'POST' })).json();
    expect(rotated.secret).not.toBe(secret);
    const { eventId } = await (await server.request(`/v1/webhooks/${hookId}/test`, { method: 'POST' })).json();
    await expect.poll(() => receiver.lines(), POLL).toContain(`webhook.test ${eventId}`);
    await expectAllDelivered();
  });

  it.skipIf(!run)('refuses a changed body, another secret, a stale timestamp and a missing header, and handles a repeated id once', async () => {
    const signer = new Webhook(secret);
    const other = new Webhook(`whsec_${randomBytes(24).toString('base64')}`);
    const body = (type: string) => JSON.stringify({ type, timestamp: new Date().toISOString(), data: { webhookId: hookId } });
    const post = async (headers: Record<string, string>, payload: string) =>
      (await fetch(`${receiver.url}/persona-refine`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload })).status;
    const signed = (id: string, payload: string, at = new Date(), by = signer) => ({
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': by.sign(id, at, payload),
    });
    const fresh = () => `msg_${randomBytes(16).toString('hex')}`;
    const printed = (id: string) => receiver.lines().filter((line) => line.endsWith(` ${id}`));

    const good = body('webhook.test');
    const first = fresh();
    expect(await post(signed(first, good), good)).toBe(204);
    await expect.poll(() => printed(first), POLL).toEqual([`webhook.test ${first}`]);

    const tampered = fresh();
    expect(await post(signed(tampered, good), good.replace(hookId, 'wh_someone_else'))).toBe(401);
    const foreign = fresh();
    expect(await post(signed(foreign, good, new Date(), other), good)).toBe(401);
    const stale = fresh();
    expect(await post(signed(stale, good, new Date(Date.now() - 10 * 60_000)), good)).toBe(401);
    const unsigned = fresh();
    const { 'webhook-signature': _, ...withoutSignature } = signed(unsigned, good);
    expect(await post(withoutSignature, good)).toBe(400);

    // The same delivery again (a retry after a lost answer) is answered, and not handled twice;
    // the one after it shows the receiver has handled everything before it.
    expect(await post(signed(first, good), good)).toBe(204);
    const last = fresh();
    expect(await post(signed(last, good), good)).toBe(204);
    await expect.poll(() => printed(last), POLL).toEqual([`webhook.test ${last}`]);
    expect(printed(first)).toHaveLength(1);
    for (const id of [tampered, foreign, stale, unsigned]) expect(printed(id)).toEqual([]);
    expect(receiver.stderr().match(/^refused: /gm)).toHaveLength(4);
  });
});
