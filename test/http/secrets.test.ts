import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayPrefix } from '../../src/accounts/api-key.js';
import { ALL_PROVIDERS, callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';

describe('secrets never leave the request', () => {
  let f: RefineFixture;
  const seenResponses: string[] = [];

  beforeAll(async () => {
    f = await startRefineFixture({ env: { LOG_LEVEL: 'trace' } });
    const persona = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Leak test' } })).json();
    for (const provider of ALL_PROVIDERS) {
      const key = callerKey(provider);
      // Providers echo the key they rejected, in full or in part.
      f.fake.enqueue({ mode: 'rejectKey', message: `Incorrect API key provided: ${key}. Key ${key.slice(0, 8)}...${key.slice(-4)} is invalid.` });
      // Only this one reaches a message (scrubbed): whole, and in the parts a provider shows of a key.
      f.fake.enqueue({ mode: 'badRequest', message: `bad request for key=${key} (${key.slice(0, 8)}…${key.slice(-7)}, ${key.slice(9, 17)})` });
      f.fake.enqueue({ mode: 'ok', reply: 'fine' });
      for (const idempotencyKey of [undefined, undefined, `idem-${provider}`]) {
        const res = await f.server.request('/v1/refine', {
          method: 'POST',
          json: { provider, providerApiKey: key, personaId: persona.id, content: 'hello' },
          headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
        });
        const text = await res.text(); if (process.env.DEBUG_SECRETS) console.log(provider, res.status, text.slice(0, 200));
        seenResponses.push(JSON.stringify([...res.headers]) + text);
      }
    }
    // The paths that name who acted (versions' createdBy, audit actors), the provider list and check's warnings.
    const base = `/v1/personas/${persona.id}`;
    const history: Array<[string, string, unknown?]> = [
      ['PATCH', base, { attributes: { tone: 'dry' } }],
      ['PUT', `${base}/labels/production`, { version: 1 }],
      ['POST', `${base}/versions/1/restore`],
      ['GET', `${base}/versions`],
      ['GET', `${base}/versions/2`],
      ['GET', `${base}/labels`],
      ['GET', `/v1/audit?personaId=${persona.id}`],
      ['GET', '/v1/providers'],
      ['POST', '/v1/check', { personaId: persona.id, personaLabel: 'production', content: 'hello' }],
    ];
    for (const [method, path, json] of history) {
      const res = await f.server.request(path, { method, json });
      const text = await res.text();
      expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
      seenResponses.push(JSON.stringify([...res.headers]) + text);
    }
    await f.server.request(base, { method: 'DELETE' });
    seenResponses.push(await (await f.server.request('/v1/audit')).text());
    seenResponses.push(await (await f.server.request('/metrics', { key: null })).text());
  });
  afterAll(() => f.close());

  const keys = ALL_PROVIDERS.map(callerKey);

  it('the providers really were sent the keys (the test is not vacuous)', () => {
    expect(f.fake.requests.length).toBeGreaterThanOrEqual(ALL_PROVIDERS.length * 3);
    expect(seenResponses.some((r) => r.includes('rejected providerApiKey'))).toBe(true);
    expect(seenResponses.some((r) => r.includes('"createdBy":"key_'))).toBe(true);
    expect(seenResponses.some((r) => r.includes('"action":"persona.deleted"'))).toBe(true);
  });

  it('not in any response body, header or the metrics: neither whole nor any fragment', () => {
    for (const key of [...keys, f.server.key]) expect(secretFragmentsIn(seenResponses.join('\n'), key), key).toEqual([]);
  });

  it('not in any log line, even at trace level: neither whole nor any fragment', () => {
    const logs = f.server.logs.join('');
    expect(logs.length).toBeGreaterThan(1000);
    for (const key of [...keys, f.server.key]) expect(secretFragmentsIn(logs, key), key).toEqual([]);
  });

  it('not in the database files', () => {
    const config = f.server.config.database;
    if (config.kind !== 'sqlite') throw new Error('expected SQLite');
    const dir = dirname(config.path);
    const files = readdirSync(dir).map((name) => readFileSync(join(dir, name)));
    expect(files.length).toBeGreaterThan(0);
    expect(Buffer.concat(files).includes('Leak test')).toBe(true);
    for (const key of keys) expect(secretFragmentsIn(Buffer.concat(files), key), key).toEqual([]);
    // Service keys: only the SHA-256 and the display prefix are stored.
    expect(secretFragmentsIn(Buffer.concat(files), f.server.key, displayPrefix(f.server.key).length)).toEqual([]);
  });
});
