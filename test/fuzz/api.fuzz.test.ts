/**
 * Property-based fuzzing of every endpoint with random and hostile input.
 * Invariants: never a 5xx, every error is exactly { error, message }, a
 * rejected request leaves the store unchanged, and the server stays healthy.
 * FUZZ_RUNS scales the case count (npm run fuzz runs a long campaign).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/test-server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', '', ' ', '\u0000', '\ud800', 'name', 'attributes', 'toString', 'a'.repeat(300));
const hostileString = fc.oneof(
  fc.string({ unit: 'grapheme-composite', maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom('\ud800', '\udfff', 'a\u0000b', '../../etc/passwd', '%00', '{{7*7}}', '<script>', 'n'.repeat(201), '   ', '\u202e'),
);
const hostileNumber = fc.oneof(fc.double(), fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 0.1));
const deepNesting = fc.integer({ min: 1, max: 2000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileKey, fc.string({ maxLength: 10 })), tie('value'), { maxKeys: 4 }),
  ),
})).value;
const objectBody = fc.dictionary(fc.oneof(hostileKey, fc.constantFrom('name', 'attributes', 'provider', 'providerApiKey', 'personaId', 'content', 'model')), value, { maxKeys: 6 });

/** Raw bodies: JSON text built by hand, duplicates, junk bytes, deep nesting. */
const rawBody = fc.oneof(
  objectBody.map((o) => JSON.stringify(o)),
  fc.tuple(hostileString, hostileString).map(([a, b]) => `{"name":${JSON.stringify(a)},"name":${JSON.stringify(b)}}`),
  deepNesting.map((nested) => `{"name":"deep","attributes":${nested}}`),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.string({ maxLength: 100 }),
  fc.constantFrom('', 'null', '[]', '{', '{"name":"x",}', '{"__proto__":{"polluted":1},"name":"x"}', '{"name":"\\ud800"}'),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json;;charset=',
  'application/jsonx',
  'application/merge-patch+json',
  undefined,
);
const idSegment = fc.oneof(
  fc.uuid(),
  fc.string({ maxLength: 60 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom('..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%00', '%ZZ', 'a'.repeat(600), '%F0%9F%98%80', '..', '.'),
);
const method = fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS');
const path = fc.oneof(
  fc.constantFrom('/v1/personas', '/v1/refine', '/v1/check', '/v1/openapi.json', '/v1/providers', '/v1/audit', '/v1/usage', '/healthz', '/readyz', '/v1', '/'),
  idSegment.map((id) => `/v1/personas/${id}`),
  fc.tuple(fc.constantFrom('{id}', '01a20097-9207-7000-9c41-72893e6c0112'), fc.constantFrom('versions', 'labels', 'versions/1', 'versions/1/restore', 'labels/latest', 'labels/stable'))
    .map(([id, rest]) => `/v1/personas/${id}/${rest}`),
  fc.tuple(fc.constantFrom('versions', 'labels'), idSegment).map(([kind, segment]) => `/v1/personas/{id}/${kind}/${segment}`),
  fc.tuple(
    fc.constantFrom('/v1/audit', '/v1/usage'),
    fc.constantFrom('from', 'to', 'personaId', 'limit', 'cursor'),
    fc.oneof(fc.string({ maxLength: 30 }).map(encodeURIComponent), fc.constantFrom('-1', '1e9', '0', '2026-13-45', '2026-01-01T00:00:00Z', '%00', '%ZZ', 'a'.repeat(600))),
  ).map(([p, name, value]) => `${p}?${name}=${value}`),
  fc.tuple(fc.constantFrom('/v1/personas', '/v1/refine'), fc.string({ maxLength: 30 })).map(([p, q]) => `${p}?${encodeURIComponent(q)}=${encodeURIComponent(q)}`),
  fc.constantFrom('/v1/personas?limit=-1', '/v1/personas?limit=1e9', '/v1/personas?limit=1&cursor=%00', '/v1/personas?limit=2&limit=3'),
  fc.constantFrom('/v1/webhooks', '/v1/webhooks/{hook}', '/v1/webhooks/{hook}/test', '/v1/webhooks/{hook}/rotate-secret', '/v1/webhooks/{hook}/deliveries'),
  fc.tuple(idSegment, fc.constantFrom('', '/test', '/rotate-secret', '/deliveries')).map(([id, rest]) => `/v1/webhooks/${id}${rest}`),
  fc.tuple(fc.constantFrom('limit', 'cursor'), fc.oneof(fc.string({ maxLength: 30 }).map(encodeURIComponent), fc.constantFrom('-1', '0', '1e9', '%00', 'a'.repeat(600))))
    .map(([name, value]) => `/v1/webhooks/{hook}/deliveries?${name}=${value}`),
);

describe.each(storageTargets)('fuzzing every endpoint on $engine', (target) => {
  let server: TestServer;
  let personaId: string;
  let hookId: string;
  beforeAll(async () => {
    server = await startTestServer({ target, env: { RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'warn', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
    personaId = (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Fuzz target', attributes: { k: 1 } } })).json()).id;
    hookId = (await (await server.request('/v1/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/fuzz', events: ['*'] } })).json()).id;
  });
  afterAll(() => server.close());

  const store = async () => (await (await server.request('/v1/personas')).text()) + (await (await server.request('/v1/webhooks')).text());

  async function assertWellFormed(res: TestResponse, label: string, method = 'GET'): Promise<void> {
    expect(res.status, label).toBeLessThan(500);
    expect(res.headers.get('x-request-id'), label).toBeTruthy();
    if (res.status >= 400 && method !== 'HEAD') {
      const body = await res.json();
      expect(Object.keys(body).sort(), label).toEqual(['error', 'message']);
      expect(body.error, label).toBe(res.status);
    } else {
      await res.arrayBuffer();
    }
  }

  it('random requests: never a 5xx, always the error body, rejections change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, rawBody, contentType, fc.boolean(), async (m, p, body, type, withAuth) => {
        const before = await store();
        const headers: Record<string, string> = {};
        if (type !== undefined) headers['content-type'] = type;
        const hasBody = m !== 'GET' && m !== 'HEAD';
        const res = await server.request(p.replace('{id}', personaId).replace('{hook}', hookId), {
          method: m,
          headers,
          body: hasBody ? body : undefined,
          ...(withAuth ? {} : { key: null }),
        });
        await assertWellFormed(res, `${m} ${p} ${type} ${JSON.stringify(body).slice(0, 200)}`, m);
        if (res.status >= 400) expect(await store()).toBe(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('structured bodies on the write endpoints: valid ones succeed, invalid ones are a clean 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('POST /v1/personas', 'PATCH /v1/personas/{id}', 'POST /v1/refine', 'POST /v1/check', 'POST /v1/webhooks', 'PATCH /v1/webhooks/{hook}'), objectBody, async (route, body) => {
        const [m, p] = route.split(' ') as [string, string];
        const before = await store();
        const res = await server.request(p.replace('{id}', personaId).replace('{hook}', hookId), { method: m, json: body });
        await assertWellFormed(res, `${route} ${JSON.stringify(body).slice(0, 200)}`);
        if (res.status >= 400) expect(await store()).toBe(before);
        expect(Object.prototype).not.toHaveProperty('polluted');
      }),
      { numRuns: RUNS },
    );
  });

  it('hostile headers: oversized, odd auth schemes, garbage request ids', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary-ascii', maxLength: 300 }), fc.string({ unit: 'binary-ascii', maxLength: 200 }), async (auth, requestId) => {
        const safe = (s: string) => s.replace(/[^\t\x20-\x7e]/g, '');
        const res = await server.request('/v1/personas', {
          headers: { authorization: safe(auth), 'x-request-id': safe(requestId), 'if-match': safe(requestId) },
          key: null,
        });
        await assertWellFormed(res, `auth=${JSON.stringify(auth)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('is still healthy and its data intact after the campaign', async () => {
    expect((await server.request('/healthz', { key: null })).status).toBe(200);
    const persona = await server.request(`/v1/personas/${personaId}`);
    expect(persona.status).toBe(200);
  });
});
