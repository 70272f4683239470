/**
 * A judge's key is a secret exactly like providerApiKey (docs/security.md, "Secrets"): never in a
 * log line (even at trace level), an answer (body, headers, a stream's events, a replay), a
 * database row or a metric, whole or in any 6-character fragment, though judges echo it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { quotingRatings } from '../fakes/provider-server.js';
import { ALL_PROVIDERS, callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { storageTargets } from '../helpers/storage-targets.js';

/** Distinct from every refine key, so a leak is the judge's. */
const judgeKey = (provider: string) => `Jd8Wk3Fp6Ux1${ALL_PROVIDERS.indexOf(provider)}Ns4Bq7Ty2Cv`;

describe('judge keys never leave the request', () => {
  let f: RefineFixture;
  const seen: string[] = [];
  const keep = async (res: Response) => {
    const text = await res.text();
    seen.push(JSON.stringify([...res.headers]) + text);
    return text;
  };

  beforeAll(async () => {
    f = await startRefineFixture({ env: { LOG_LEVEL: 'trace' } });
    const persona = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Judged leak test', attributes: { tone: 'warm' } } })).json();
    for (const provider of ALL_PROVIDERS) {
      const key = judgeKey(provider);
      const judge = { provider, providerApiKey: key };
      // Judges that echo the key: a rejection, an error message, and reasons that repeat it.
      f.fake.enqueue({ mode: 'rejectKey', message: `Incorrect API key provided: ${key}.` });
      await keep(await f.server.request('/v1/check', { method: 'POST', json: { personaId: persona.id, content: 'hello', judge } }));
      f.fake.enqueue({ mode: 'badRequest', message: `bad request for key=${key} (${key.slice(0, 8)}…${key.slice(-7)})` });
      await keep(await f.server.request('/v1/check', { method: 'POST', json: { personaId: persona.id, content: 'hello', judge } }));
      f.fake.enqueue({ mode: 'ok', structured: { ratings: [{ attribute: 'tone', rating: 3, reason: `Warm, but it was called with ${key}.` }] } });
      await keep(await f.server.request('/v1/check', { method: 'POST', json: { personaId: persona.id, content: 'hello', judge } }));
      // A refine judged (its failure echoing the key in a header), streamed, and replayed.
      const body = { provider: 'openai', providerApiKey: callerKey('openai'), personaId: persona.id, content: 'hello', judge };
      f.fake.enqueue({ mode: 'ok', reply: 'Hi!' }, { mode: 'serverError', message: `overloaded for ${key}` }, { mode: 'serverError', message: `overloaded for ${key}` }, {
        mode: 'serverError',
        message: `overloaded for ${key}`,
      });
      await keep(await f.server.request('/v1/refine', { method: 'POST', json: body }));
      f.fake.enqueue({ mode: 'ok', reply: 'Hi!' }, { mode: 'ok', structured: { ratings: [{ attribute: 'tone', rating: 2, reason: `Cold; key ${key}` }] } });
      for (let i = 0; i < 2; i++) {
        await keep(await f.server.request('/v1/refine', { method: 'POST', headers: { 'idempotency-key': `judge-${provider}` }, json: { ...body, stream: true } }));
      }
    }
    seen.push(await (await f.server.request('/metrics', { key: null })).text());
  });
  afterAll(() => f.close());

  const keys = ALL_PROVIDERS.map(judgeKey);

  it('the judges really were sent the keys and echoed them (the test is not vacuous)', () => {
    for (const key of keys) expect(f.fake.requests.some((r) => JSON.stringify(r.headers).includes(key))).toBe(true);
    const answers = seen.join('\n');
    expect(answers).toContain('rejected providerApiKey (HTTP');
    expect(answers).toContain('called with [redacted]');
    expect(answers).toContain('x-persona-judge-error');
    expect(answers).toContain('"judge":{"provider":');
  });

  it('not in any response body, header, stream event, replay or the metrics', () => {
    for (const key of keys) expect(secretFragmentsIn(seen.join('\n'), key), key).toEqual([]);
  });

  it('not in any log line, even at trace level', () => {
    const logs = f.server.logs.join('');
    expect(logs.length).toBeGreaterThan(1000);
    for (const key of keys) expect(secretFragmentsIn(logs, key), key).toEqual([]);
  });

  it('not in the database files (usage rows, idempotency replays)', () => {
    const config = f.server.config.database;
    if (config.kind !== 'sqlite') throw new Error('expected SQLite');
    const dir = dirname(config.path);
    const files = Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));
    expect(files.includes('Judged leak test')).toBe(true);
    for (const key of keys) expect(secretFragmentsIn(files, key), key).toEqual([]);
  });
});

describe.each(storageTargets)('a judge answer that quotes the keys where a message names it, on $engine', (target) => {
  const judgeKey = 'Hk2Rv8Jd5Wm3Tq9Lx6Fz4Nb7';
  const refineKey = callerKey('openai');
  let f: RefineFixture;
  const seen: string[] = [];
  const keep = async (res: Response) => {
    const text = await res.text();
    seen.push(JSON.stringify([...res.headers]) + text);
    return text;
  };

  beforeAll(async () => {
    f = await startRefineFixture({ target, env: { LOG_LEVEL: 'trace' } });
    const { id } = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Quoted keys', attributes: { tone: 'warm' } } })).json();
    expect((await f.server.request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'Say hi.' }] } })).status).toBe(200);
    const judge = { provider: 'anthropic', providerApiKey: judgeKey };
    for (const where of ['attribute', 'rating', 'reason'] as const) {
      // A check holds the judge's key alone; a refine's judge may also quote the refine's key.
      f.fake.setBehaviour({ mode: 'ok', reply: 'Hi!', structured: quotingRatings(judgeKey, where) });
      await keep(await f.server.request('/v1/check', { method: 'POST', json: { personaId: id, content: 'hello', judge } }));
      f.fake.setBehaviour({ mode: 'ok', reply: 'Hi!', structured: quotingRatings(`${judgeKey} ${refineKey}`, where) });
      const body = { provider: 'openai', providerApiKey: refineKey, personaId: id, content: 'hello', judge };
      for (const stream of [false, true]) {
        // The second is the replay of the stored answer.
        for (let i = 0; i < 2; i++) {
          await keep(await f.server.request('/v1/refine', { method: 'POST', headers: { 'idempotency-key': `${where}-${stream}` }, json: { ...body, stream } }));
        }
      }
      const started = await (await f.server.request(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'openai', providerApiKey: refineKey, judge } })).json();
      const result = () => f.server.request(`/v1/personas/${id}/evals/${started.id}`);
      await vi.waitFor(async () => expect((await (await result()).json()).status).toBe('completed'), { timeout: 20_000, interval: 50 });
      await keep(await result());
    }
  });
  afterAll(() => f.close());

  it('the judges quoted the keys and the refusals named what they quoted (the test is not vacuous)', () => {
    expect(f.fake.requests.some((r) => r.headers['x-api-key'] === judgeKey)).toBe(true);
    const answers = seen.join('\n');
    expect(answers).toContain('gave no usable ratings in 2 answers: the last one rates \\"[redacted]\\", which the persona does not set');
    expect(answers).toContain('the last one rates \\"tone\\" \\"[redacted]\\", not a whole number');
    expect(answers).toContain('x-persona-judge-error');
    expect(answers).toContain('event: done');
    expect(answers).toContain('It reads like [redacted].');
  });

  it('neither key is in any answer body, header, stream event, replay or eval result', () => {
    for (const key of [judgeKey, refineKey]) expect(secretFragmentsIn(seen.join('\n'), key), key).toEqual([]);
  });

  it('neither key is in any log line, even at trace level', () => {
    for (const key of [judgeKey, refineKey]) expect(secretFragmentsIn(f.server.logs.join(''), key), key).toEqual([]);
  });

  it('neither key is in a stored idempotent answer, eval result or usage row', async () => {
    const { db } = f.server.storage;
    const rows = JSON.stringify([
      await db.selectFrom('idempotency_keys').selectAll().execute(),
      await db.selectFrom('eval_runs').selectAll().execute(),
      await db.selectFrom('eval_results').selectAll().execute(),
      await db.selectFrom('usage_daily').selectAll().execute(),
    ]);
    expect(rows).toContain('gave no usable ratings');
    for (const key of [judgeKey, refineKey]) expect(secretFragmentsIn(rows, key), key).toEqual([]);
  });
});
