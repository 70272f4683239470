/**
 * The caller's provider key of a chat completion (X-Provider-Api-Key) never leaves the request:
 * not in an answer (body, headers, a stream, an error, an idempotent replay), not in a log line
 * at trace level, not in the metrics, not in a database row, on either engine, even when the
 * provider echoes it in an error or the model writes it into its text or a tool call.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { secretFragmentsIn } from '../helpers/secrets.js';
import { storageTargets } from '../helpers/storage-targets.js';

const PROVIDERS = ['openai', 'groq', 'anthropic', 'google'] as const;

/** Every row of every table as text: what a reader of the database could see. */
async function databaseText(f: RefineFixture): Promise<string> {
  const config = f.server.config.database;
  if (config.kind === 'sqlite') {
    const dir = dirname(config.path);
    return Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name)))).toString('latin1');
  }
  const db = f.server.storage.db;
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema()`.execute(db);
  const rows = [];
  for (const { table_name } of tables.rows) rows.push(...(await sql`select * from ${sql.table(table_name)}`.execute(db)).rows);
  return JSON.stringify(rows);
}

describe.each(storageTargets)('chat completions keep the provider key secret ($engine)', (target) => {
  let f: RefineFixture;
  const seen: string[] = [];

  beforeAll(async () => {
    f = await startRefineFixture({ target, env: { LOG_LEVEL: 'trace' } });
    const persona = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Leak test', attributes: { avoid: ['synergy'] } } })).json()).id;
    for (const provider of PROVIDERS) {
      const key = callerKey(provider);
      f.fake.enqueue(
        { mode: 'rejectKey', message: `Incorrect API key provided: ${key}.` },
        { mode: 'badRequest', message: `bad request for key=${key} (${key.slice(0, 8)}…${key.slice(-7)})` },
        // A wait beyond the deadline: answered as our 429, not retried.
        { mode: 'rateLimit', message: `slow down, ${key}`, retryAfterSeconds: 60 },
        // The model writes the key into its text (a repair follows for the banned word) and into a tool call.
        { mode: 'ok', reply: `synergy with ${key}` },
        { mode: 'ok', reply: `teamwork with ${key}` },
        { mode: 'ok', toolCalls: [{ name: 'lookup', arguments: { token: key } }] },
        { mode: 'ok', reply: `streamed ${key} text`, pieceChars: 4 },
      );
      const bodies: Record<string, unknown>[] = [{}, {}, {}, {}, { tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] }, { stream: true, stream_options: { include_usage: true } }];
      for (const [index, extra] of bodies.entries()) {
        const res = await f.server.request('/v1/chat/completions', {
          method: 'POST',
          headers: { 'x-persona': persona, 'x-provider-api-key': key, ...(index === 3 ? { 'idempotency-key': `idem-${provider}` } : {}) },
          json: { model: provider, messages: [{ role: 'user', content: 'hello' }], ...extra },
        });
        seen.push(JSON.stringify([...res.headers]) + (await res.text()));
      }
      // The replay of the stored answer.
      const replay = await f.server.request('/v1/chat/completions', {
        method: 'POST',
        headers: { 'x-persona': persona, 'x-provider-api-key': key, 'idempotency-key': `idem-${provider}` },
        json: { model: provider, messages: [{ role: 'user', content: 'hello' }] },
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      seen.push(JSON.stringify([...replay.headers]) + (await replay.text()));
    }
    seen.push(await (await f.server.request('/v1/usage')).text());
    seen.push(await (await f.server.request('/metrics', { key: null })).text());
  });
  afterAll(() => f.close());

  const keys = PROVIDERS.map(callerKey);

  it('the providers were sent the keys and answered every kind of way (the test is not vacuous)', () => {
    expect(f.fake.requests).toHaveLength(PROVIDERS.length * 7);
    const all = seen.join('\n');
    for (const needle of ['rejected providerApiKey', 'is rate limiting requests', '"tool_calls"', 'chat.completion.chunk', '[redacted]']) expect(all).toContain(needle);
  });

  it('not in any answer, header, stream, replay or the metrics', () => {
    for (const key of keys) expect(secretFragmentsIn(seen.join('\n'), key), key).toEqual([]);
  });

  it('not in any log line, even at trace level', () => {
    const logs = f.server.logs.join('');
    expect(logs.length).toBeGreaterThan(1000);
    for (const key of keys) expect(secretFragmentsIn(logs, key), key).toEqual([]);
  });

  it('not in any database row', async () => {
    const text = await databaseText(f);
    expect(text).toContain('Leak test');
    for (const key of keys) expect(secretFragmentsIn(text, key), key).toEqual([]);
  });
});
