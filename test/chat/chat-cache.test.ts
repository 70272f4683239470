/**
 * The refine's opt-in answer cache on POST /v1/chat/completions, driven by the official `openai`
 * package (Cache-Control as a default or per-request header), on both engines and through Redis:
 * MISS then HIT with Age and no second provider call; anything that changes the conversation, the
 * persona's version or the provider key is a MISS; `no-cache`, `no-store` and no directive as for
 * a refine; tool calls and the finish reason restored; a streamed hit says the whole answer.
 */
import OpenAI from 'openai';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, refineEnv, startRefineFixture } from '../helpers/refine-fixture.js';
import { REDIS_TEST_URL, redisAvailable } from '../helpers/services.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** One provider per wire format: Responses, Chat Completions, Anthropic Messages, Gemini. */
const WIRE_FORMATS = ['openai', 'groq', 'anthropic', 'google'] as const;

const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather now in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

const ASKED = [{ role: 'system' as const, content: 'Answer briefly.' }, { role: 'user' as const, content: 'Where is my order?' }];

const client = (server: TestServer, personaId: string, headers: Record<string, string> = {}, provider = 'openai') =>
  new OpenAI({
    apiKey: server.key, baseURL: `${server.url}/v1`, maxRetries: 0,
    defaultHeaders: { 'X-Persona': personaId, 'X-Provider-Api-Key': callerKey(provider), ...headers },
  });

const createPersona = async (server: TestServer, name: string) =>
  (await (await server.request('/v1/personas', { method: 'POST', json: { name, attributes: { tone: 'calm' } } })).json()).id as string;

describe.each(storageTargets)('the answer cache on POST /v1/chat/completions ($engine)', (target) => {
  let f: RefineFixture;
  let personaId: string;
  const cached = (headers: Record<string, string> = {}, provider = 'openai') => client(f.server, personaId, { 'Cache-Control': 'max-age=600', ...headers }, provider);
  const ask = (openai: OpenAI, body: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}, headers: Record<string, string> = {}) =>
    openai.chat.completions.create({ model: 'openai', messages: ASKED, ...body }, { headers }).withResponse();

  beforeAll(async () => {
    f = await startRefineFixture({ target });
  });
  afterAll(() => f.close());
  beforeEach(async () => {
    f.fake.reset();
    // A fresh persona per test: nothing another test stored can answer.
    personaId = await createPersona(f.server, 'Cached chat');
  });

  it('MISS, then HIT with Age, the same completion and headers, no second provider call, counted as a cache hit of endpoint chat', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'It ships Friday.' });
    const { secret } = await (await f.server.request('/v1/keys', { method: 'POST', json: { name: 'cached', scopes: ['refine', 'usage:read'] } })).json();
    const openai = new OpenAI({
      apiKey: secret as string, baseURL: `${f.server.url}/v1`, maxRetries: 0,
      defaultHeaders: { 'X-Persona': personaId, 'X-Provider-Api-Key': callerKey('openai'), 'Cache-Control': 'max-age=600' },
    });
    const miss = await ask(openai, { temperature: 0.2 });
    expect(miss.response.headers.get('x-cache')).toBe('MISS');
    expect(miss.response.headers.get('age')).toBeNull();
    const hit = await ask(openai, { temperature: 0.2 });
    expect(hit.response.headers.get('x-cache')).toBe('HIT');
    expect(hit.response.headers.get('age')).toMatch(/^\d+$/);
    expect(f.fake.requestCount).toBe(1);
    expect(hit.data.choices).toEqual(miss.data.choices);
    expect(hit.data.choices[0]!.message.content).toBe('It ships Friday.');
    expect(hit.data.model).toBe(miss.data.model);
    expect(hit.data.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    for (const header of ['x-provider', 'x-persona-version', 'x-persona-score', 'x-persona-rules']) {
      expect(hit.response.headers.get(header)).toBe(miss.response.headers.get(header));
    }
    expect(hit.response.headers.get('x-persona-rules')).toBe('applied');
    expect(hit.response.headers.get('x-usage')).toBe('input_tokens=0, output_tokens=0, provider_calls=0');

    const rows = await (await f.server.request('/v1/usage?groupBy=key', { key: secret })).json();
    expect(rows.map((row: { endpoint: string; refines: number; cacheHits: number; providerCalls: number }) => [row.endpoint, row.refines, row.cacheHits, row.providerCalls]))
      .toEqual([['chat', 2, 1, 1]]);
  });

  it('the order of a request\'s JSON keys does not matter', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Sunny.' });
    const headers = { authorization: `Bearer ${f.server.key}`, 'x-persona': personaId, 'x-provider-api-key': callerKey('openai'), 'cache-control': 'max-age=600' };
    const body = (tool: Record<string, unknown>) => ({ model: 'openai', messages: [{ role: 'user', content: 'Weather?' }], tools: [{ type: 'function', function: tool }] });
    const first = await f.server.request('/v1/chat/completions', { method: 'POST', headers, json: body({ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }) });
    expect(first.headers.get('x-cache')).toBe('MISS');
    const reordered = await f.server.request('/v1/chat/completions', { method: 'POST', headers, json: body({ parameters: { properties: { city: { type: 'string' } }, type: 'object' }, name: 'get_weather' }) });
    expect(reordered.headers.get('x-cache')).toBe('HIT');
    expect(f.fake.requestCount).toBe(1);
  });

  it.each([
    ['another message', { messages: [...ASKED, { role: 'user' as const, content: 'And the invoice?' }] }],
    ['another temperature', { temperature: 0.9 }],
    ['tools', { tools: [WEATHER_TOOL] }],
    ['a tool choice', { tools: [WEATHER_TOOL], tool_choice: 'none' as const }],
    ['a response format', { response_format: { type: 'json_object' as const } }],
    ['another model', { model: 'openai/gpt-other' }],
  ])('%s is a MISS', async (_, changed) => {
    f.fake.setBehaviour({ mode: 'ok', reply: '{"answer":"Friday"}' });
    const openai = cached();
    await ask(openai, { temperature: 0.2 });
    const other = await ask(openai, { temperature: 0.2, ...changed });
    expect(other.response.headers.get('x-cache')).toBe('MISS');
    expect(f.fake.requestCount).toBe(2);
  });

  it('another persona version, or another provider key, is a MISS', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Friday.' });
    await ask(cached());
    const patched = await f.server.request(`/v1/personas/${personaId}`, { method: 'PATCH', json: { attributes: { tone: 'brisk' } } });
    expect(patched.status).toBe(200);
    const newVersion = await ask(cached());
    expect(newVersion.response.headers.get('x-cache')).toBe('MISS');
    expect(newVersion.response.headers.get('x-persona-version')).toBe('2');
    expect((await ask(cached())).response.headers.get('x-cache')).toBe('HIT');
    const otherKey = await ask(cached({ 'X-Provider-Api-Key': `${callerKey('openai')}Other` }));
    expect(otherKey.response.headers.get('x-cache')).toBe('MISS');
    expect(f.fake.requestCount).toBe(3);
  });

  it('no-cache answers afresh and refreshes the entry; no-store neither reads nor stores; no directive: no cache, no X-Cache', async () => {
    f.fake.enqueue({ mode: 'ok', reply: 'First answer.' }, { mode: 'ok', reply: 'Second answer.' }, { mode: 'ok', reply: 'Third answer.' }, { mode: 'ok', reply: 'Fourth answer.' });
    const openai = client(f.server, personaId);
    await ask(openai, {}, { 'Cache-Control': 'max-age=600' });
    const fresh = await ask(openai, {}, { 'Cache-Control': 'no-cache' });
    expect(fresh.response.headers.get('x-cache')).toBe('MISS');
    expect(fresh.data.choices[0]!.message.content).toBe('Second answer.');
    const refreshed = await ask(openai, {}, { 'Cache-Control': 'max-age=600' });
    expect(refreshed.response.headers.get('x-cache')).toBe('HIT');
    expect(refreshed.data.choices[0]!.message.content).toBe('Second answer.');
    expect(f.fake.requestCount).toBe(2);

    const unstored = await ask(openai, { temperature: 0.5 }, { 'Cache-Control': 'no-store' });
    expect(unstored.response.headers.get('x-cache')).toBe('MISS');
    expect(unstored.data.choices[0]!.message.content).toBe('Third answer.');
    const uncached = await ask(openai);
    expect(uncached.response.headers.get('x-cache')).toBeNull();
    expect(uncached.response.headers.get('age')).toBeNull();
    expect(uncached.data.choices[0]!.message.content).toBe('Fourth answer.');
    expect(f.fake.requestCount).toBe(4);
    // Neither the no-store answer nor the one without a directive was stored.
    f.fake.setBehaviour({ mode: 'ok', reply: 'Fifth answer.' });
    expect((await ask(openai, { temperature: 0.5 }, { 'Cache-Control': 'max-age=600' })).response.headers.get('x-cache')).toBe('MISS');
  });

  it('a JSON answer is kept as it was, rules skipped, on the hit too', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: '{"answer":"Friday"}' });
    const openai = cached();
    const miss = await ask(openai, { response_format: { type: 'json_object' } });
    const hit = await ask(openai, { response_format: { type: 'json_object' } });
    expect(hit.response.headers.get('x-cache')).toBe('HIT');
    expect(hit.response.headers.get('x-persona-rules')).toBe('skipped');
    expect(miss.response.headers.get('x-persona-rules')).toBe('skipped');
    expect(hit.data.choices).toEqual(miss.data.choices);
  });

  it.each(WIRE_FORMATS)('a tool-call answer round-trips through the cache (%s): calls, finish reason, rules skipped, whole or streamed', async (provider) => {
    f.fake.setBehaviour({ mode: 'ok', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const openai = cached({}, provider);
    const body = { model: provider, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools: [WEATHER_TOOL] };
    const miss = await openai.chat.completions.create(body).withResponse();
    expect(miss.data.choices[0]!.finish_reason).toBe('tool_calls');
    const hit = await openai.chat.completions.create(body).withResponse();
    expect(hit.response.headers.get('x-cache')).toBe('HIT');
    expect(hit.response.headers.get('x-persona-rules')).toBe('skipped');
    expect(hit.data.choices).toEqual(miss.data.choices);

    const { data: stream, response } = await openai.chat.completions.create({ ...body, stream: true }).withResponse();
    expect(response.headers.get('x-cache')).toBe('HIT');
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(calls.map((call) => [call.id, call.function!.name, call.function!.arguments])).toEqual(
      miss.data.choices[0]!.message.tool_calls!.map((call) => [call.id, call.type === 'function' && call.function.name, call.type === 'function' && call.function.arguments]),
    );
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(f.fake.requestCount).toBe(1);
  });

  it('a streamed request gets a hit as a stream that says the whole answer', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hello there!   Your order ships Monday, with care.', pieceChars: 3 });
    const openai = cached();
    const whole = await ask(openai);
    expect(whole.response.headers.get('x-cache')).toBe('MISS');
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'openai', messages: ASKED, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(response.headers.get('x-cache')).toBe('HIT');
    expect(response.headers.get('age')).toMatch(/^\d+$/);
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(whole.data.choices[0]!.message.content);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(f.fake.requestCount).toBe(1);
  });

  it('a streamed MISS is stored once it ended whole, and a whole request then hits it', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Streamed first, then cached.', pieceChars: 4 });
    const openai = cached();
    const { data: stream, response } = await openai.chat.completions.create({ model: 'openai', messages: ASKED, stream: true }).withResponse();
    expect(response.headers.get('x-cache')).toBe('MISS');
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
    await expect.poll(async () => (await ask(openai)).response.headers.get('x-cache')).toBe('HIT');
    const hit = await ask(openai);
    expect(hit.data.choices[0]!.message.content).toBe(streamed);
    expect(f.fake.requestCount).toBe(1);
  });
});

describe.skipIf(!redisAvailable)('the chat completions answer cache shared through Redis', () => {
  let f: RefineFixture;
  let second: TestServer;
  let redis: Redis;
  let personaId: string;

  beforeAll(async () => {
    redis = new Redis(REDIS_TEST_URL);
    const env = { REDIS_URL: REDIS_TEST_URL };
    f = await startRefineFixture({ env });
    await f.server.close();
    // Both instances share the database and Redis, as behind a load balancer.
    const first = await startTestServer({ env: refineEnv(f.fake, env), redis: new Redis(REDIS_TEST_URL) });
    second = await startTestServer({ shareDatabaseWith: first, env: refineEnv(f.fake, env), redis: new Redis(REDIS_TEST_URL) });
    f = { ...f, server: first };
    personaId = await createPersona(first, 'Shared chat');
  });
  afterAll(async () => {
    await second.close();
    await f.close();
    redis.disconnect();
  });

  it('a tool-call completion one instance stored is a HIT on the other, calls and finish reason restored, and no provider key in Redis', async () => {
    f.fake.setBehaviour({ mode: 'ok', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const body = { model: 'anthropic', messages: [{ role: 'user' as const, content: `Oslo ${Date.now()}?` }], tools: [WEATHER_TOOL] };
    const headers = { 'Cache-Control': 'max-age=600' };
    const miss = await client(f.server, personaId, headers, 'anthropic').chat.completions.create(body).withResponse();
    expect(miss.response.headers.get('x-cache')).toBe('MISS');
    const hit = await client(second, personaId, headers, 'anthropic').chat.completions.create(body).withResponse();
    expect(hit.response.headers.get('x-cache')).toBe('HIT');
    expect(hit.data.choices).toEqual(miss.data.choices);
    expect(hit.data.choices[0]!.finish_reason).toBe('tool_calls');
    expect(f.fake.requestCount).toBe(1);

    const keys = await redis.keys('persona-refine:answer:*');
    const values = await Promise.all(keys.map((key) => redis.get(key)));
    const everything = JSON.stringify([keys, values]);
    expect(everything).toContain('get_weather');
    expect(everything).not.toContain(callerKey('anthropic'));
  });
});
