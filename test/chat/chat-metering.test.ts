/**
 * What holds for a refine holds for a chat completion, on both engines: its usage is counted
 * in GET /v1/usage as `endpoint: "chat"` beside the refines, it spends the key's token budget
 * (X-Budget-Tokens-Remaining), and an Idempotency-Key replays it, whole or streamed, while the
 * same key with another persona is a 422 rather than the first persona's answer.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

describe.each(storageTargets)('chat completions metered as refines are ($engine)', (target) => {
  let f: RefineFixture;
  let personaId: string;
  let otherPersonaId: string;
  const chat = (headers: Record<string, string>, body: Record<string, unknown> = {}, key?: string) =>
    f.server.request('/v1/chat/completions', {
      method: 'POST',
      ...(key ? { key } : {}),
      headers: { 'x-persona': personaId, 'x-provider-api-key': callerKey('openai'), ...headers },
      json: { model: 'openai', messages: [{ role: 'user', content: 'Hello there' }], ...body },
    });

  beforeAll(async () => {
    f = await startRefineFixture({ target });
    const create = async (name: string) => (await (await f.server.request('/v1/personas', { method: 'POST', json: { name, attributes: { tone: 'calm' } } })).json()).id as string;
    personaId = await create('Metered');
    otherPersonaId = await create('Other');
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it('counts a completion in /v1/usage as endpoint chat, beside the refine of the same provider and model', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hello to you.' });
    const { secret } = await (await f.server.request('/v1/keys', { method: 'POST', json: { name: 'counted', scopes: ['refine', 'usage:read'] } })).json();
    expect((await chat({}, {}, secret)).status).toBe(200);
    expect((await f.server.request('/v1/refine', { method: 'POST', key: secret, json: { provider: 'openai', providerApiKey: callerKey('openai'), personaId, content: 'Hi' } })).status).toBe(200);
    const rows = await (await f.server.request('/v1/usage?groupBy=key', { key: secret })).json();
    const mine = rows.filter((row: { provider: string }) => row.provider === 'openai');
    expect(mine.map((row: { endpoint: string; refines: number; providerCalls: number }) => [row.endpoint, row.refines, row.providerCalls])).toEqual([['chat', 1, 1], ['refine', 1, 1]]);
  });

  it('spends the key\'s token budget and says what is left', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Fine.' });
    const { secret } = await (await f.server.request('/v1/keys', { method: 'POST', json: { name: 'budgeted', scopes: ['refine'], limits: { tokensPerDay: 100_000 } } })).json();
    const res = await chat({}, {}, secret);
    expect(res.status).toBe(200);
    const { usage } = await res.json();
    expect(Number(res.headers.get('x-budget-tokens-remaining'))).toBe(100_000 - usage.total_tokens);
  });

  it('a budget spent is OpenAI\'s RateLimitError', async () => {
    const { secret } = await (await f.server.request('/v1/keys', { method: 'POST', json: { name: 'poor', scopes: ['refine'], limits: { tokensPerDay: 1 } } })).json();
    const openai = new OpenAI({ apiKey: secret, baseURL: `${f.server.url}/v1`, maxRetries: 0, defaultHeaders: { 'X-Persona': personaId, 'X-Provider-Api-Key': callerKey('openai') } });
    const error = await openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Hello there, this is long enough' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(f.fake.requests).toHaveLength(0);
  });

  it.each([false, true])('replays an answer for the same Idempotency-Key (stream: %s); another persona under it is a 422', async (stream) => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Once only.' });
    const key = `idem-chat-${target.engine}-${stream}`;
    const body = stream ? { stream: true } : {};
    const first = await chat({ 'idempotency-key': key }, body);
    const firstText = await first.text();
    const again = await chat({ 'idempotency-key': key }, body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(f.fake.requests).toHaveLength(1);
    expect(again.headers.get('x-persona-rules')).toBe('applied');
    const replayed = await again.text();
    if (stream) {
      const content = (text: string) => text.split('\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6)).choices[0]?.delta.content ?? '').join('');
      expect(content(replayed)).toBe(content(firstText));
      expect(replayed.trimEnd().endsWith('data: [DONE]')).toBe(true);
    } else {
      expect(replayed).toBe(firstText);
    }
    const other = await chat({ 'idempotency-key': key, 'x-persona': otherPersonaId }, body);
    expect(other.status).toBe(422);
    expect((await other.json()).error).toMatchObject({
      type: 'invalid_request_error', code: 'idempotency_mismatch',
      message: 'this Idempotency-Key was already used with a different request body or x-persona, x-persona-variant, x-provider-api-key header; use a new key for a new request',
    });
  });
});
