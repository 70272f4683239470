/**
 * Property-based fuzzing of every route outside the JSON API, with the paths a
 * scanner sends: dot segments, double slashes, encoded dots and slashes, NUL
 * bytes, overlong and odd names. Requests go out byte for byte (fetch would
 * resolve the dot segments first). Invariants: never a 5xx, every error is
 * exactly { error, message }, nothing is logged at warning level or above, and
 * a file served under /studio is one of the studio's own.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUDIO_BUILD_DIR } from '../../src/routes/studio.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const studioFiles = new Set(
  readdirSync(STUDIO_BUILD_DIR, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => sha256(readFileSync(join(entry.parentPath, entry.name)))),
);

const segment = fc.oneof(
  fc.constantFrom('', '.', '..', '%2e', '%2E', '%2e%2e', '.%2e', '%2e.', '%2f', '%2F', '%5c', '..%2f', '..%5c', '%2e%2e%2f'),
  fc.constantFrom('%00', 'a%00b', '%', '%zz', '%ff', '%c0%ae', '%e2%80%ae', '~', "'", '()', '*', '!', '-', '_'),
  fc.constantFrom('index.html', 'assets', '.env', '.git', 'package.json', 'etc', 'passwd', 'static', 'json', 'yaml', 'index.html.gz'),
  fc.integer({ min: 200, max: 2000 }).map((n) => 'a'.repeat(n)),
  fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 20 }).map((s) => encodeURIComponent(s)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }).map((s) => encodeURIComponent(s).replace(/%EF%BF%BD/g, '%ff')),
);
const route = fc.constantFrom('/studio', '/studio/assets', '/docs', '/docs/static', '/metrics', '/healthz', '/readyz', '/v1/openapi.json');
const query = fc.option(fc.constantFrom('?', '?a=1', '?persona=%00', '?%zz', '?url=/../../', '?a=1&a=2'), { nil: '' });
const path = fc
  .tuple(route, fc.array(segment, { maxLength: 5 }), fc.boolean(), query)
  .map(([base, segments, trailingSlash, q]) => `${[base, ...segments].join('/')}${trailingSlash ? '/' : ''}${q}`);
const method = fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH');
const headers = fc.record(
  {
    range: fc.constantFrom('bytes=0-0', 'bytes=99999999-', 'bytes=-1', 'bytes=5-1', 'bytes=a-b', 'lines=1-2', 'bytes=0-1,2-3'),
    'if-none-match': fc.constantFrom('*', '"x"', 'W/"y"', ''),
    'if-modified-since': fc.constantFrom('Thu, 01 Jan 1970 00:00:00 GMT', 'yesterday', ''),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*;q=0', 'x'),
  },
  { requiredKeys: [] },
);

describe('fuzzing every route outside the JSON API', () => {
  let server: TestServer;
  let logsBefore: number;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'info' } });
    logsBefore = server.logs.length;
  });
  afterAll(() => server.close());

  it('never a 5xx, always the one error shape, only the studio\'s own files', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, headers, async (m, p, h) => {
        const label = `${m} ${p} ${JSON.stringify(h)}`;
        const response = await rawRequest(server.url, m, p, h);
        expect(response.status, label).toBeLessThan(500);
        expect(response.headers['x-request-id'], label).toBeTruthy();
        if (response.status >= 400 && m !== 'HEAD') {
          expect(response.headers['content-type'], label).toBe('application/json; charset=utf-8');
          expect(JSON.parse(response.body), label).toEqual({ error: response.status, message: expect.any(String) });
        }
        if (response.status === 200 && m === 'GET' && p.startsWith('/studio/') && !('range' in h)) {
          expect(studioFiles.has(sha256(response.bytes)), `${label} served something that is not a studio file`).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
    const loud = server.logs.slice(logsBefore).map((line) => JSON.parse(line)).filter((line) => line.level >= 40);
    expect(loud).toEqual([]);
  });

  it('is still healthy after the campaign', async () => {
    expect((await server.request('/healthz', { key: null })).status).toBe(200);
    expect((await server.request('/readyz', { key: null })).status).toBe(200);
  });
});
