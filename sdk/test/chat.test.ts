/** client.chat and client.chatStream against the real server and fake providers in all four wire formats. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../../test/helpers/refine-fixture.js';
import { type ChatInput, type ChatStream, PermissionError, PersonaRefine, PersonaRefineError } from '../src/index.js';

const PERSONA = { name: 'Acme Support', attributes: { tone: 'warm and direct', vocabulary: { customers: 'members' }, avoid: ['synergy'] } };
const REPLY = 'Our customers get their refund today.';
const FIXED = 'Our members get their refund today.';
const SYSTEM = 'You answer questions about orders.';
const USER = 'Where is my refund?';
/** One provider per wire format: Responses, Anthropic Messages, Gemini, Chat Completions. */
const PROVIDERS = ['openai', 'anthropic', 'google', 'mistral'] as const;

describe('client.chat against a real server', () => {
  let f: RefineFixture;
  let client: PersonaRefine;
  let personaId: string;
  const input = (provider: string, extra: Partial<ChatInput> = {}): ChatInput => ({
    persona: personaId,
    model: provider,
    providerApiKey: callerKey(provider),
    messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: USER }],
    ...extra,
  });
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (e: unknown) => e as PersonaRefineError);
  const collect = async (stream: ChatStream) => {
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta.content ?? '');
    return pieces;
  };

  beforeAll(async () => {
    f = await startRefineFixture({ env: { PROVIDER_TIMEOUT_MS: '5000' } });
    client = new PersonaRefine({ apiKey: f.server.key, baseUrl: f.server.url, maxRetries: 0 });
    personaId = (await client.personas.create(PERSONA)).id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it.each(PROVIDERS)('through %s: the persona first, the caller\'s messages in order, its rules on the answer, one provider call', async (provider) => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const result = await client.chat(input(provider));
    expect(result.choices[0]!.message.content).toBe(FIXED);
    expect(result).toMatchObject({ object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop' }] });
    expect(result.model).toMatch(new RegExp(`^${provider}/.+`));
    expect(result.usage).toEqual({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    expect(result).toMatchObject({ personaVersion: 1, rules: 'applied', providerCalls: 1, violations: {}, requestId: expect.any(String) });
    expect(result.score).toEqual(expect.any(Number));
    expect(result.provider.id).toBe(provider);
    expect(Object.keys(result)).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage']);
    expect(f.fake.requests).toHaveLength(1);
    const sent = JSON.stringify(f.fake.requests[0]!.body);
    const [persona = -1, system = -1, user = -1] = [PERSONA.attributes.tone, SYSTEM, USER].map((text) => sent.indexOf(text));
    expect(persona).toBeGreaterThan(-1);
    expect(persona).toBeLessThan(system);
    expect(system).toBeLessThan(user);
  });

  it('makes the one repair call while a required rule is still broken, and sums the usage of both calls', async () => {
    f.fake.enqueue({ mode: 'ok', reply: 'Pure synergy for our customers.' }, { mode: 'ok', reply: REPLY });
    const result = await client.chat(input('anthropic'));
    expect(result.choices[0]!.message.content).toBe(FIXED);
    expect(result.providerCalls).toBe(2);
    expect(f.fake.requests).toHaveLength(2);
    const single = await client.chat(input('anthropic'));
    expect(result.usage!.completion_tokens).toBeGreaterThan(single.usage!.completion_tokens);
  });

  it.each(PROVIDERS)('through %s: tool calls come back as OpenAI\'s, untouched by the rules, and a tool result goes back', async (provider) => {
    f.fake.setBehaviour({ mode: 'ok', toolCalls: [{ name: 'lookup_order', arguments: { order: 'A-1', note: 'customers' } }] });
    const tools = [{ type: 'function' as const, function: { name: 'lookup_order', parameters: { type: 'object', properties: { order: { type: 'string' } } } } }];
    const called = await client.chat(input(provider, { tools }));
    const [call] = called.choices[0]!.message.tool_calls ?? [];
    expect(called.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: 'lookup_order' } });
    expect(JSON.parse(call!.function.arguments)).toEqual({ order: 'A-1', note: 'customers' });
    expect(called.rules).toBe('skipped');
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const answered = await client.chat(input(provider, {
      tools,
      messages: [...input(provider).messages, { role: 'assistant', content: null, tool_calls: [call!] }, { role: 'tool', tool_call_id: call!.id, content: '{"status":"refunded"}' }],
    }));
    expect(answered.choices[0]!.message.content).toBe(FIXED);
    expect(JSON.stringify(f.fake.requests.at(-1)!.body)).toContain('refunded');
  });

  it.each(PROVIDERS)('through %s: the stream adds up to what chat answers for the same provider answer', async (provider) => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY, pieceChars: 3 });
    const whole = await client.chat(input(provider));
    const stream = client.chatStream({ ...input(provider), includeUsage: true });
    const pieces = await collect(stream);
    const result = await stream.result;
    expect(pieces.join('')).toBe(whole.choices[0]!.message.content);
    for (const piece of pieces) expect(piece).not.toMatch(/customers/);
    expect(result.choices).toEqual(whole.choices);
    expect(result.usage).toEqual({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    expect(result.personaVersion).toBe(1);
  });

  it('a provider that refuses the key is a 401 from the provider, scrubbed of the key', async () => {
    f.fake.setBehaviour('rejectKey');
    const error = await failure(client.chat(input('openai')));
    expect(error).toMatchObject({ kind: 'http', status: 401, source: 'provider' });
    expect(error.message).toMatch(/^provider "openai" /);
    expect(error.message).not.toContain(callerKey('openai').slice(4, 12));
  });

  it('the provider\'s 429 keeps its status and Retry-After', async () => {
    f.fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 7 });
    expect(await failure(client.chat(input('anthropic')))).toMatchObject({ status: 429, retryAfter: 7, source: 'provider' });
  });

  it('an unknown persona is a 404, an empty one a TypeError before sending, an unknown provider a 400 naming the known ones', async () => {
    expect(await failure(client.chat({ ...input('openai'), persona: '0190b5c4-0000-7000-8000-000000000000' }))).toMatchObject({ status: 404 });
    await expect(client.chat({ ...input('openai'), persona: '' })).rejects.toThrow(TypeError);
    const unknown = await failure(client.chat(input('nosuchprovider')));
    expect(unknown).toMatchObject({ status: 400 });
    expect(unknown.message).toMatch(/anthropic/);
  });

  it('a key without the refine scope is a PermissionError naming it', async () => {
    const issued = await client.keys.create({ name: 'read only', scopes: ['personas:read'] });
    const reader = new PersonaRefine({ apiKey: issued.secret, baseUrl: f.server.url, maxRetries: 0 });
    const error = await failure(reader.chat(input('openai')));
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as PermissionError).scope).toBe('refine');
  });
});
