/**
 * client.chat and client.chatStream against a scripted server: what goes on the wire, OpenAI's
 * error body read into the SDK's errors, and a stream's chunks added up, whatever the server does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PermissionError, PersonaRefine, PersonaRefineError, type ChatCompletionChunk, type ChatStream } from '../src/index.js';
import { answer, type ScriptedServer, type Script, startScriptedServer } from './helpers/scripted-server.js';

const PROVIDER_KEY = 'sk-FAKE-not-a-key-chat-wire';
const PERSONA = '0190b5c4-0000-7000-8000-000000000001@production';
const input = { persona: PERSONA, providerApiKey: PROVIDER_KEY, model: 'anthropic/claude-haiku-4-5', messages: [{ role: 'user' as const, content: 'Hello' }] };

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_790_000_000,
  model: 'anthropic/claude-haiku-4-5',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there, member.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 },
};
const openAiError = (status: number, message: string, headers: Record<string, string> = {}) =>
  answer(status, { error: { message, type: 'invalid_request_error', param: null, code: null } }, { 'x-request-id': 'req-9', ...headers });

/** Loosely typed: a server may split a tool call over chunks as OpenAI's own streams do. */
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'openai/gpt-5.4-mini',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const sse = (...events: unknown[]) => events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`).join('');
const streamAnswer = (body: string): Script => answer(200, body, { 'content-type': 'text/event-stream', 'x-request-id': 'req-s', 'x-persona-version': '3', 'x-provider': 'openai/gpt-5.4-mini' });

describe('client.chat on the wire', () => {
  let server: ScriptedServer;
  afterEach(() => server.close());
  const clientFor = (script: (index: number) => Script, maxRetries = 2) =>
    startScriptedServer((_request, index) => script(index)).then((started) => {
      server = started;
      return new PersonaRefine({ apiKey: 'prk_test', baseUrl: started.url, maxRetries });
    });
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (e: unknown) => e as PersonaRefineError);

  it('sends the persona and the provider key in headers, the rest as OpenAI\'s body, and reads the persona headers', async () => {
    const client = await clientFor(() =>
      answer(200, completion, {
        'x-persona-version': '3', 'x-persona-score': '92', 'x-persona-violations': 'maxWords=1', 'x-persona-rules': 'applied',
        'x-usage': 'input_tokens=30, output_tokens=5, provider_calls=2', 'x-provider': 'anthropic/claude-haiku-4-5', 'x-request-id': 'req-1',
      }),
    );
    const result = await client.chat({ ...input, temperature: 0.2, max_tokens: 50 });
    const sent = server.seen[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers['x-persona']).toBe(PERSONA);
    expect(sent.headers['x-provider-api-key']).toBe(PROVIDER_KEY);
    expect(sent.headers['idempotency-key']).toMatch(/.+/);
    expect(JSON.parse(sent.body)).toEqual({ model: input.model, messages: input.messages, temperature: 0.2, max_tokens: 50 });
    expect(result).toEqual(completion);
    expect(JSON.stringify(result)).toBe(JSON.stringify(completion));
    expect(result).toMatchObject({ personaVersion: 3, score: 92, violations: { maxWords: 1 }, rules: 'applied', providerCalls: 2, requestId: 'req-1' });
    expect(result.provider).toEqual({ id: 'anthropic', model: 'claude-haiku-4-5' });
  });

  it('reads X-Persona-Rules: skipped', async () => {
    const client = await clientFor(() => answer(200, completion, { 'x-persona-rules': 'skipped' }));
    expect((await client.chat({ ...input, response_format: { type: 'json_object' } })).rules).toBe('skipped');
  });

  it('refuses a persona or provider key that cannot travel in a header before sending anything', async () => {
    const client = await clientFor(() => answer(200, completion));
    await expect(client.chat({ ...input, persona: 'id\nX-Evil: 1' })).rejects.toThrow(/persona must be/);
    const error = (await failure(client.chat({ ...input, providerApiKey: `${PROVIDER_KEY}\n` }))) as Error;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).not.toContain(PROVIDER_KEY);
    expect(() => client.chatStream({ ...input, persona: 'café' })).toThrow(TypeError);
    expect(server.seen).toEqual([]);
  });

  it.each([
    [400, 'model must be "<provider>/<model>"', PersonaRefineError],
    [401, 'provider "openai" rejected the key in X-Provider-Api-Key (HTTP 401)', PersonaRefineError],
    [403, 'this API key lacks the scope "refine"', PermissionError],
    [404, 'persona "x" not found', PersonaRefineError],
  ])('an OpenAI error body with status %i is a PersonaRefineError carrying its message', async (status, message, type) => {
    const client = await clientFor(() => openAiError(status, message));
    const error = await failure(client.chat(input));
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ kind: 'http', status, message, requestId: 'req-9' });
    if (error instanceof PermissionError) expect(error.scope).toBe('refine');
  });

  it('a 429 carries Retry-After and is retried after it', async () => {
    const client = await clientFor((index) => (index === 0 ? openAiError(429, 'provider "openai" is rate limiting you', { 'retry-after': '0' }) : answer(200, completion)));
    expect(await client.chat(input)).toEqual(completion);
    expect(server.seen.map((request) => request.headers['idempotency-key'])).toEqual([server.seen[0]!.headers['idempotency-key'], server.seen[0]!.headers['idempotency-key']]);
    const once = await clientFor(() => openAiError(429, 'slow down', { 'retry-after': '7' }), 0);
    expect(await failure(once.chat(input))).toMatchObject({ status: 429, retryAfter: 7, message: 'slow down' });
  });

  it('a 200 without choices is a PersonaRefineError, not a TypeError', async () => {
    const client = await clientFor(() => answer(200, { id: 'x', object: 'chat.completion' }));
    expect(await failure(client.chat(input))).toMatchObject({ kind: 'http', status: 200, message: 'HTTP 200 answer has no choices[0].message' });
  });
});

describe('client.chatStream on the wire', () => {
  let server: ScriptedServer;
  afterEach(() => server.close());
  const clientFor = async (script: (index: number) => Script) => {
    server = await startScriptedServer((_request, index) => script(index));
    return new PersonaRefine({ apiKey: 'prk_test', baseUrl: server.url, maxRetries: 2, onRetry: () => undefined });
  };
  const collect = async (stream: ChatStream) => {
    const chunks: ChatCompletionChunk[] = [];
    for await (const piece of stream) chunks.push(piece);
    return chunks;
  };
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (e: unknown) => e as PersonaRefineError);

  it('yields the chunks and adds them up to the completion, usage chunk included', async () => {
    const client = await clientFor(() =>
      streamAnswer(sse(chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hi ' }), chunk({ content: 'member.' }), chunk({}, 'stop'),
        { ...chunk({}), choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } }, '[DONE]')),
    );
    const stream = client.chatStream({ ...input, includeUsage: true });
    const chunks = await collect(stream);
    const body = JSON.parse(server.seen[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(body).not.toHaveProperty('includeUsage');
    expect(server.seen[0]!.headers.accept).toBe('text/event-stream');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hi member.');
    const result = await stream.result;
    expect(result).toEqual({
      id: 'chatcmpl-2', object: 'chat.completion', created: 1_790_000_000, model: 'openai/gpt-5.4-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi member.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
    });
    expect(result).toMatchObject({ personaVersion: 3, requestId: 'req-s', provider: { id: 'openai', model: 'gpt-5.4-mini' } });
  });

  it('merges a tool call streamed in pieces', async () => {
    const client = await clientFor(() =>
      streamAnswer(sse(
        chunk({ role: 'assistant' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"or' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'der":"A-1"}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      )),
    );
    const stream = client.chatStream(input);
    await collect(stream);
    expect((await stream.result).choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order":"A-1"}' } }] },
      finish_reason: 'tool_calls',
    });
  });

  it('an error after text throws the typed error after the chunks given, and is not retried', async () => {
    const client = await clientFor(() =>
      streamAnswer(sse(chunk({ role: 'assistant' }), chunk({ content: 'Hi' }), { error: { message: 'provider "openai" failed (HTTP 500): boom', type: 'server_error', param: null, code: 'provider_failed' } })),
    );
    const stream = client.chatStream(input);
    const seen: ChatCompletionChunk[] = [];
    const error = await failure((async () => { for await (const piece of stream) seen.push(piece); })());
    expect(seen).toHaveLength(2);
    expect(error).toMatchObject({ kind: 'http', status: 502, source: 'provider', requestId: 'req-s' });
    expect(await failure(stream.result)).toBe(error);
    expect(server.seen).toHaveLength(1);
  });

  it.each([
    ['provider_timeout', 'server_error', 'provider "openai" did not answer within 1500 ms', 504, 'provider'],
    ['provider_rate_limited', 'rate_limit_error', 'provider "openai" is rate limiting requests', 429, 'provider'],
    ['internal', 'server_error', 'internal error', 500, 'service'],
  ])('a mid-stream error with code %s has the status the same failure gets unstreamed', async (code, type, message, status, source) => {
    const client = await clientFor(() => streamAnswer(sse(chunk({ role: 'assistant' }), chunk({ content: 'Hi' }), { error: { message, type, param: null, code } })));
    expect(await failure(collect(client.chatStream(input)))).toMatchObject({ kind: 'http', status, source, message });
  });

  it('an error before any text is the attempt\'s failure: retried when retryable', async () => {
    const client = await clientFor((index) =>
      index === 0
        ? streamAnswer(sse(chunk({ role: 'assistant' }), { error: { message: 'provider "openai" is overloaded (HTTP 503)', type: 'server_error', param: null, code: 'provider_failed' } }))
        : streamAnswer(sse(chunk({ role: 'assistant' }), chunk({ content: 'Hi' }), chunk({}, 'stop'), '[DONE]')),
    );
    const stream = client.chatStream(input);
    expect((await collect(stream)).map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hi');
    expect(server.seen).toHaveLength(2);
  });

  it('a failure before the stream is OpenAI\'s JSON error, read as usual', async () => {
    const client = await clientFor(() => openAiError(404, 'persona "x" not found'));
    expect(await failure(collect(client.chatStream(input)))).toMatchObject({ status: 404, message: 'persona "x" not found' });
  });

  it('a stream that ends without [DONE] throws, not a clean end', async () => {
    const client = await clientFor(() => streamAnswer(sse(chunk({ role: 'assistant' }), chunk({ content: 'Hi' }))));
    expect(await failure(collect(client.chatStream(input)))).toMatchObject({ kind: 'network', message: expect.stringMatching(/without its \[DONE\]/) });
  });

  it('can be iterated only once', async () => {
    const client = await clientFor(() => streamAnswer(sse(chunk({ content: 'Hi' }, 'stop'), '[DONE]')));
    const stream = client.chatStream(input);
    await collect(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(TypeError);
  });
});
