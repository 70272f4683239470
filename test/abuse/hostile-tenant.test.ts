/**
 * What one account holding one valid key can try against everyone else's service, on both
 * storage engines: inputs one engine cannot store, client-chosen model names, oversized
 * phrases, a fallback answering for another key, keys echoed back re-encoded, providers
 * that misbehave at the HTTP level, and requests a scanner sends.
 */
import { createHash } from 'node:crypto';
import { connect, createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { refineEnv, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer } from '../helpers/test-server.js';

const K1 = 'Hv7Qp2Lx9Mz4Wb8Nc1Rk5Ts3Yd6Fg0Aj';
const K2 = 'Zt3Kc8Vn1Qy6Ub4Wm9Lr2Xs7Hp5Gd0Ef';
/** Every 8-character run of the key's letters and digits, lower-cased: what must appear nowhere. */
function leaksOf(haystack: string, key: string): string[] {
  const plain = haystack.toLowerCase().replace(/[^a-z0-9]/g, '');
  const forms = [key, Buffer.from(key).toString('hex'), Buffer.from(key).toString('base64')].map((f) => f.toLowerCase().replace(/[^a-z0-9]/g, ''));
  const found: string[] = [];
  for (const form of forms) for (let i = 0; i + 8 <= form.length; i++) if (plain.includes(form.slice(i, i + 8))) found.push(form.slice(i, i + 8));
  return found;
}

describe.each(storageTargets)('a hostile tenant on $engine', (target) => {
  let f: RefineFixture;
  let personaId: string;
  const refine = (json: Record<string, unknown>, headers: Record<string, string> = {}) =>
    f.server.request('/v1/refine', { method: 'POST', json: { provider: 'openai', providerApiKey: K1, personaId, content: 'Hello there, friend.', ...json }, headers });

  beforeAll(async () => {
    f = await startRefineFixture({ target });
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Target', attributes: { tone: 'warm' } } })).json()).id;
  });
  afterAll(() => f.close());

  describe('a client-chosen model name (finding 3)', () => {
    it.each([['llama3.2:模'], ['gpt\r\nX-Injected: 1'], ['gpt\u0001'], ['a b']])('%j is a 400 naming the field, before any provider call, with our headers', async (model) => {
      const calls = f.fake.requestCount;
      for (const body of [{ model }, { model, stream: true }, { fallbacks: [{ provider: 'anthropic', providerApiKey: K2, model }] }]) {
        const res = await refine(body);
        expect(res.status).toBe(400);
        expect(res.headers.get('x-request-id')).toBeTruthy();
        const json = await res.json();
        expect(Object.keys(json)).toEqual(['error', 'message']);
        expect(json.message).toMatch(/model/);
      }
      expect(f.fake.requestCount).toBe(calls);
    });

    it('does not poison an Idempotency-Key: the retry gets the same 400, and a new key with a valid model works', async () => {
      const first = await refine({ model: 'llama3.2:模' }, { 'idempotency-key': 'poison-1' });
      const retry = await refine({ model: 'llama3.2:模' }, { 'idempotency-key': 'poison-1' });
      expect([first.status, retry.status]).toEqual([400, 400]);
      expect(await retry.json()).toEqual(await first.json());
      const fine = await refine({ model: 'llama3.2:latest' }, { 'idempotency-key': 'poison-2' });
      expect(fine.status).toBe(200);
      expect(fine.headers.get('x-provider')).toBe('openai/llama3.2:latest');
    });

    it('refuses a provider key with a control character with a 400 that does not echo it', async () => {
      const res = await refine({ providerApiKey: `${K1}\n` });
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toContain('providerApiKey');
      expect(leaksOf(text, K1)).toEqual([]);
    });
  });

  describe('values only one engine could store (finding 4): the same 400/412 on both', () => {
    it.each([
      ['/v1/personas?cursor=%00'],
      ['/v1/personas?limit=5&cursor=%00'],
      ['/v1/audit?cursor=%00'],
      ['/v1/audit?personaId=a%00b'],
      ['/v1/personas/a%00b'],
    ])('GET %s → 400', async (path) => {
      const res = await f.server.request(path);
      expect(res.status).toBe(400);
      expect((await res.json()).message).toMatch(/NUL/);
    });

    it('a NUL in any field of a body is a 400 naming it, and nothing is written', async () => {
      const before = (await (await f.server.request('/v1/personas')).json()).length;
      for (const json of [{ name: 'a\u0000b' }, { name: 'ok', attributes: { tone: 'x\u0000' } }, { name: 'ok', attributes: { 'k\u0000': 1 } }]) {
        const res = await f.server.request('/v1/personas', { method: 'POST', json });
        expect(res.status).toBe(400);
        expect((await res.json()).message).toMatch(/NUL character/);
      }
      const patch = await f.server.request(`/v1/personas/${personaId}`, { method: 'PATCH', json: { name: 'x\u0000' } });
      expect((await patch.json()).message).toBe('name must not contain the NUL character (\\u0000)');
      expect((await (await f.server.request('/v1/personas')).json()).length).toBe(before);
    });

    it('a refine whose model holds a NUL is refused before it is counted: /v1/usage keeps working for everyone', async () => {
      const res = await refine({ model: 'echo:400,zz\u0000' });
      expect(res.status).toBe(400);
      expect((await refine({})).status).toBe(200);
      const usage = await f.server.request('/v1/usage');
      expect(usage.status).toBe(200);
    });

    it.each([['PATCH', '', { name: 'n' }], ['DELETE', '', undefined], ['POST', '/versions/1/restore', undefined], ['PUT', '/labels/production', { version: 1 }], ['DELETE', '/labels/production', undefined]])(
      'If-Match "2147483648" on %s …%s is a 412, not a 500',
      async (method, suffix, json) => {
        const res = await f.server.request(`/v1/personas/${personaId}${suffix}`, { method, json, headers: { 'if-match': '"2147483648"' } });
        expect(res.status).toBe(412);
      },
    );
  });

  describe('phrases long enough to break a regular expression (finding 5)', () => {
    const long = 'x'.repeat(20_000);
    it.each([[{ signOff: long }], [{ avoid: [long] }], [{ casing: [long] }], [{ vocabulary: { [long]: 'y' } }], [{ vocabulary: { y: long } }], [{ avoid: Array.from({ length: 2600 }, (_, i) => `term${i}`) }]])(
      'are refused at write time with the limit named: %#',
      async (attributes) => {
        const res = await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Long', attributes } });
        expect(res.status).toBe(400);
        expect((await res.json()).message).toMatch(/at most (100|200) (characters|strings|terms)/);
      },
    );

    it('a persona stored before the limits still refines and checks: the long phrase is ignored and reported', async () => {
      const { id } = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Legacy' } })).json();
      await f.server.storage.db.updateTable('personas').set({ attributes: JSON.stringify({ signOff: long, avoid: [long] }) }).where('id', '=', id).execute();
      const refined = await f.server.request('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId: id, content: 'Hello.' } });
      expect(refined.status).toBe(200);
      const check = await f.server.request('/v1/check', { method: 'POST', json: { personaId: id, content: 'Hello.' } });
      expect(check.status).toBe(200);
      expect((await check.json()).warnings.map((w: { attribute: string }) => w.attribute).sort()).toEqual(['avoid', 'signOff']);
    });
  });

  describe('the answer cache (finding 6)', () => {
    it("a same-provider fallback's answer is stored under the key that paid for it, never under the primary's", async () => {
      f.fake.enqueue({ mode: 'serverError' }, { mode: 'ok', reply: 'Answer paid by K2.' });
      const content = `cache probe ${target.engine}`;
      const both = await refine({ content, fallbacks: [{ provider: 'openai', providerApiKey: K2 }] }, { 'cache-control': 'max-age=3600' });
      expect(both.status).toBe(200);
      expect(await both.json()).toEqual({ response: 'Answer paid by K2.' });
      const k1 = await refine({ content }, { 'cache-control': 'max-age=3600' });
      expect(k1.headers.get('x-cache')).toBe('MISS');
      expect((await k1.json()).response).not.toBe('Answer paid by K2.');
      const k2 = await refine({ content, providerApiKey: K2 }, { 'cache-control': 'max-age=3600' });
      expect(k2.headers.get('x-cache')).toBe('HIT');
      expect(await k2.json()).toEqual({ response: 'Answer paid by K2.' });
    });
  });

  describe('keys echoed back re-encoded (findings 7 and 10)', () => {
    const echoes = [
      K1.toUpperCase(), K1.toLowerCase(), encodeURIComponent(`key=${K1}`).replace(/[A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16)}`),
      Buffer.from(`user:${K1}`).toString('base64'), Buffer.from(K1).toString('hex'), K1.split('').join('-'),
    ];
    it.each(echoes.map((echo, i) => [i, echo]))('echo %i in a 400 error reaches no message, log line or stored row', async (index, echo) => {
      f.fake.enqueue({ mode: 'badRequest', message: `invalid request for key ${echo}` });
      const res = await refine({ content: `echo ${index}` }, { 'idempotency-key': `echo-${index}-${target.engine}` });
      expect(res.status).toBe(400);
      const rows = await f.server.storage.db.selectFrom('idempotency_keys').selectAll().execute();
      expect(leaksOf(await res.text() + f.server.logs.join('') + JSON.stringify(rows), K1)).toEqual([]);
    });

    it('a key echoed inside a successful answer is removed from the answer, the cache and the idempotency row', async () => {
      f.fake.enqueue({ mode: 'ok', reply: `Sure. Your key ${K1} and ${Buffer.from(K1).toString('base64')} are noted.` });
      const res = await refine({ content: 'leak in answer' }, { 'idempotency-key': `answer-leak-${target.engine}`, 'cache-control': 'max-age=60' });
      const body = await res.text();
      expect(res.status, body).toBe(200);
      expect(body).toContain('[redacted]');
      const rows = await f.server.storage.db.selectFrom('idempotency_keys').selectAll().execute();
      const hit = await refine({ content: 'leak in answer' }, { 'cache-control': 'max-age=60' });
      expect(hit.headers.get('x-cache')).toBe('HIT');
      expect(leaksOf(body + JSON.stringify(rows) + (await hit.text()), K1)).toEqual([]);
    });

    it('the stored request hash is keyed: a database reader cannot confirm a guessed provider key', async () => {
      const json = { provider: 'openai', providerApiKey: K1, personaId, content: 'hash probe' };
      await f.server.request('/v1/refine', { method: 'POST', json, headers: { 'idempotency-key': `hash-${target.engine}` } });
      const row = await f.server.storage.db.selectFrom('idempotency_keys').selectAll().where('key', '=', `hash-${target.engine}`).executeTakeFirstOrThrow();
      const body = JSON.stringify(json);
      for (const guess of [body, `POST /v1/refine\n${body}`]) expect(row.request_hash).not.toBe(createHash('sha256').update(guess).digest('hex'));
    });
  });

  describe('providers misbehaving at the HTTP level (finding 9)', () => {
    let raw: Server;
    let server: Awaited<ReturnType<typeof startTestServer>>;
    beforeAll(async () => {
      raw = createServer((socket) => socket.once('data', () => socket.write('HTTP/1.1 101 Switching Protocols\r\n\r\n')));
      await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
      const env = refineEnv(f.fake);
      env.PROVIDER_BASE_URL_MISTRAL = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`;
      server = await startTestServer({ target, env });
    });
    afterAll(async () => {
      await server.close();
      raw.close();
    });

    it('an HTTP/1.1 101 answer is a 502 from the provider, not a 500', async () => {
      const { id } = await (await server.request('/v1/personas', { method: 'POST', json: { name: 'P' } })).json();
      const res = await server.request('/v1/refine', { method: 'POST', json: { provider: 'mistral', providerApiKey: K1, personaId: id, content: 'hi' } });
      expect(res.status).toBe(502);
      expect(res.headers.get('x-error-source')).toBe('provider');
      expect((await res.json()).message).toMatch(/^provider "mistral"/);
    });

    it('an answer of 400,000 printf-style placeholders is refined and checked, not a stack overflow', async () => {
      const { id } = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Words', attributes: { vocabulary: { customers: 'members' } } } })).json();
      const reply = '%s '.repeat(400_000);
      f.fake.enqueue({ mode: 'ok', reply });
      const res = await refine({ personaId: id, content: 'Keep %s and %d.' });
      expect(res.status).toBe(200);
      const check = await f.server.request('/v1/check', { method: 'POST', json: { personaId: id, content: '%s '.repeat(30_000), original: 'Keep %s.' } });
      expect(check.status).toBe(200);
    });

    it("a provider's Retry-After: 1e300 is relayed as a whole number of seconds at most a day", async () => {
      f.fake.enqueue({ mode: 'rateLimit', retryAfterSeconds: 1e300 }, { mode: 'rateLimit', retryAfterSeconds: 1e300 }, { mode: 'rateLimit', retryAfterSeconds: 1e300 });
      const res = await refine({ content: 'retry after' });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('86400');
    });
  });

  describe('what a scanner sends (finding 9)', () => {
    it('a request without Host gets our JSON 400 with X-Request-Id', async () => {
      const { port } = new URL(f.server.url);
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 400/);
      expect(reply.toLowerCase()).toContain('x-request-id:');
      expect(reply).toContain('{"error":400,"message":"the request has no Host header, which HTTP/1.1 requires"}');
    });

    it.each([['TRACE'], ['PROPFIND'], ['MKCOL']])('%s on a known path is a 405 with Allow', async (method) => {
      const res = await rawRequest(f.server.url, method, '/v1/personas', { authorization: `Bearer ${f.server.key}` });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, POST');
      expect(JSON.parse(res.body)).toEqual({ error: 405, message: `${method} is not allowed on this path; allowed: GET, HEAD, POST` });
    });
  });
});
