/**
 * What each wire format sends for a whole conversation, read on the fake's side of the wire:
 * the persona's instructions first, the caller's turns in order, tool calls and their results,
 * tools, tool choice, response format and sampling in the provider's own words; and what a
 * provider cannot honour refused with a 400 before any request leaves.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Conversation, ToolChoice } from '../../src/providers/index.js';
import { type FakeProviderServer, type RecordedRequest, startFakeProviderServer } from '../fakes/provider-server.js';
import { call, domainRejection, OPERATOR_ID, OPERATOR_MODEL, PERSONA_SYSTEM, registryFor, within } from './provider-test-kit.js';

let fake: FakeProviderServer;
beforeAll(async () => {
  fake = await startFakeProviderServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** A caller's conversation with everything in it: a system message, a tool call answered, a later question. */
const conversation: Conversation = {
  system: PERSONA_SYSTEM,
  messages: [
    { role: 'system', text: 'Answer in English.' },
    { role: 'user', text: 'What is the weather in Paris?' },
    { role: 'assistant', text: '', toolCalls: [{ id: 'call_A1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    { role: 'tool', toolCallId: 'call_A1', text: '{"celsius":21}' },
    { role: 'assistant', text: 'It is 21 degrees in Paris.' },
    { role: 'user', text: 'And in Rome?' },
  ],
  tools: [{ name: 'get_weather', description: 'The weather now in a city.', parameters: WEATHER_SCHEMA }],
  toolChoice: 'auto',
  sampling: { temperature: 0.2, topP: 0.9, maxTokens: 300, user: 'end-user-7' },
};

async function sent(id: string, asked: Conversation, how: 'generate' | 'stream' = 'generate'): Promise<RecordedRequest> {
  const registry = registryFor(fake);
  if (how === 'generate') await registry.generate(id, call(id, { conversation: asked }), within(5_000));
  else for await (const piece of (await registry.stream(id, call(id, { conversation: asked }), within(5_000))).pieces) void piece;
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0] as RecordedRequest;
}

describe('a whole conversation on the wire', () => {
  it('openai (Responses): instructions, the caller\'s system message as developer, function_call and function_call_output items', async () => {
    const { body } = await sent('openai', conversation);
    expect(body).toEqual({
      model: 'gpt-5.4-mini',
      instructions: PERSONA_SYSTEM,
      input: [
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: [{ type: 'input_text', text: 'What is the weather in Paris?' }] },
        { type: 'function_call', call_id: 'call_A1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_A1', output: '{"celsius":21}' },
        { role: 'assistant', content: 'It is 21 degrees in Paris.' },
        { role: 'user', content: [{ type: 'input_text', text: 'And in Rome?' }] },
      ],
      store: false,
      tools: [{ type: 'function', name: 'get_weather', description: 'The weather now in a city.', parameters: WEATHER_SCHEMA, strict: false }],
      tool_choice: 'auto',
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 300,
      user: 'end-user-7',
    });
  });

  it('Chat Completions (groq, an operator endpoint): the persona\'s system message, then the caller\'s messages as they are', async () => {
    const withStopAndSeed = { ...conversation, sampling: { ...conversation.sampling, stop: ['END'], seed: 7 } };
    for (const [id, model] of [['groq', 'llama-3.3-70b-versatile'], [OPERATOR_ID, OPERATOR_MODEL]]) {
      fake.reset();
      const { body } = await sent(id as string, withStopAndSeed);
      expect(body).toEqual({
        model,
        messages: [
          { role: 'system', content: PERSONA_SYSTEM },
          { role: 'system', content: 'Answer in English.' },
          { role: 'user', content: 'What is the weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_A1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_A1', content: '{"celsius":21}' },
          { role: 'assistant', content: 'It is 21 degrees in Paris.' },
          { role: 'user', content: 'And in Rome?' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather now in a city.', parameters: WEATHER_SCHEMA } }],
        tool_choice: 'auto',
        temperature: 0.2,
        top_p: 0.9,
        max_tokens: 300,
        stop: ['END'],
        seed: 7,
        user: 'end-user-7',
      });
    }
  });

  it('mistral: the seed as random_seed, and no user field (Mistral refuses unknown fields)', async () => {
    const { body } = await sent('mistral', { ...conversation, sampling: { ...conversation.sampling, seed: 7 } });
    expect(body).toMatchObject({ random_seed: 7, max_tokens: 300 });
    expect(body).not.toHaveProperty('seed');
    expect(body).not.toHaveProperty('user');
  });

  it('anthropic: the caller\'s system message after the persona\'s in `system`, tool_use and tool_result blocks, alternating turns', async () => {
    const { body } = await sent('anthropic', { ...conversation, sampling: { ...conversation.sampling, stop: ['END'] } });
    expect(body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 300,
      system: `${PERSONA_SYSTEM}\n\nAnswer in English.`,
      messages: [
        { role: 'user', content: 'What is the weather in Paris?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_A1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_A1', content: '{"celsius":21}' }] },
        { role: 'assistant', content: 'It is 21 degrees in Paris.' },
        { role: 'user', content: 'And in Rome?' },
      ],
      tools: [{ name: 'get_weather', description: 'The weather now in a city.', input_schema: WEATHER_SCHEMA }],
      tool_choice: { type: 'auto' },
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      metadata: { user_id: 'end-user-7' },
    });
  });

  it('anthropic: a generated answer without max_tokens may be as long as the model allows, as elsewhere; a rewrite about as long as its text', async () => {
    const { sampling: _sampling, ...unlimited } = conversation;
    expect((await sent('anthropic', { ...unlimited, answerKind: 'generated' })).body).toMatchObject({ max_tokens: 64_000 });
    fake.reset();
    expect((await sent('anthropic', unlimited)).body).toMatchObject({ max_tokens: 1_024 });
  });

  it('anthropic: the results of several calls, and the user\'s text after them, go in one user turn', async () => {
    const { body } = await sent('anthropic', {
      system: PERSONA_SYSTEM,
      messages: [
        { role: 'user', text: 'Weather in Paris and Rome?' },
        { role: 'assistant', text: 'Checking both.', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }, { id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Rome"}' }] },
        { role: 'tool', toolCallId: 'toolu_1', text: '21' },
        { role: 'tool', toolCallId: 'toolu_2', text: '25' },
        { role: 'user', text: 'Which is warmer?' },
      ],
    });
    expect((body as { messages: unknown }).messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '21' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '25' },
          { type: 'text', text: 'Which is warmer?' },
        ],
      },
    ]);
  });

  it('google: systemInstruction holds both instructions, functionCall and functionResponse parts (named from the call), generationConfig', async () => {
    const { body } = await sent('google', { ...conversation, sampling: { ...conversation.sampling, stop: ['END'], seed: 7 } });
    expect(body).toEqual({
      systemInstruction: { parts: [{ text: PERSONA_SYSTEM }, { text: 'Answer in English.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { celsius: 21 } } }] },
        { role: 'model', parts: [{ text: 'It is 21 degrees in Paris.' }] },
        { role: 'user', parts: [{ text: 'And in Rome?' }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'The weather now in a city.', parametersJsonSchema: WEATHER_SCHEMA }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: { temperature: 0.2, topP: 0.9, maxOutputTokens: 300, stopSequences: ['END'], seed: 7 },
    });
  });

  it('google: a tool result that is not a JSON object goes as { content }', async () => {
    const { body } = await sent('google', { ...conversation, messages: conversation.messages.map((m) => (m.role === 'tool' ? { ...m, text: 'sunny' } : m)) });
    expect((body as { contents: unknown[] }).contents[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: 'sunny' } } }] });
  });

  it('anthropic and google: an assistant turn with neither text nor calls is left out (both refuse empty content)', async () => {
    const silent: Conversation = {
      system: PERSONA_SYSTEM,
      messages: [{ role: 'user', text: 'Hello?' }, { role: 'assistant', text: '' }, { role: 'user', text: 'Anyone there?' }],
    };
    expect((await sent('anthropic', silent)).body).toMatchObject({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello?' }, { type: 'text', text: 'Anyone there?' }] }],
    });
    fake.reset();
    expect((await sent('google', silent)).body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Hello?' }, { text: 'Anyone there?' }] }] });
  });

  it('a streamed request carries the same conversation, asking for a stream', async () => {
    for (const id of ['openai', 'groq', 'anthropic', 'google']) {
      fake.reset();
      const whole = (await sent(id, conversation)).body as Record<string, unknown>;
      fake.reset();
      const streamed = await sent(id, conversation, 'stream');
      expect(streamed.stream).toBe(true);
      const { stream: _stream, stream_options: _options, ...rest } = streamed.body as Record<string, unknown>;
      expect(rest).toEqual(whole);
    }
  });
});

/** Where each format puts the tool choice. */
const toolChoiceOf: Record<string, (body: Record<string, unknown>) => unknown> = {
  openai: (body) => body.tool_choice,
  groq: (body) => body.tool_choice,
  anthropic: (body) => body.tool_choice,
  google: (body) => body.toolConfig,
};

describe.each<[ToolChoice, Record<string, unknown>]>([
  ['none', { openai: 'none', groq: 'none', anthropic: { type: 'none' }, google: { functionCallingConfig: { mode: 'NONE' } } }],
  ['required', { openai: 'required', groq: 'required', anthropic: { type: 'any' }, google: { functionCallingConfig: { mode: 'ANY' } } }],
  [{ name: 'get_weather' }, {
    openai: { type: 'function', name: 'get_weather' },
    groq: { type: 'function', function: { name: 'get_weather' } },
    anthropic: { type: 'tool', name: 'get_weather' },
    google: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
  }],
])('tool_choice %j', (choice, expected) => {
  it.each(Object.keys(toolChoiceOf))('%s says it in its own words', async (id) => {
    const { body } = await sent(id, { ...conversation, toolChoice: choice });
    expect(toolChoiceOf[id]?.(body as Record<string, unknown>)).toEqual(expected[id]);
  });
});

describe('response_format', () => {
  const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
  const jsonSchema = { ...conversation, responseFormat: { type: 'json_schema' as const, name: 'answer', schema, strict: true } };
  const jsonObject = { ...conversation, responseFormat: { type: 'json_object' as const } };

  it('openai: text.format', async () => {
    expect((await sent('openai', jsonSchema)).body).toMatchObject({ text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } } });
    fake.reset();
    expect((await sent('openai', jsonObject)).body).toMatchObject({ text: { format: { type: 'json_object' } } });
  });

  it('Chat Completions: response_format as OpenAI names it', async () => {
    expect((await sent('groq', jsonSchema)).body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } } });
    fake.reset();
    expect((await sent('groq', jsonObject)).body).toMatchObject({ response_format: { type: 'json_object' } });
  });

  it('google: responseMimeType application/json, and the schema as responseJsonSchema', async () => {
    expect((await sent('google', jsonSchema)).body).toMatchObject({ generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } });
    fake.reset();
    const { body } = await sent('google', jsonObject);
    expect((body as { generationConfig: unknown }).generationConfig).toEqual({ temperature: 0.2, topP: 0.9, maxOutputTokens: 300, responseMimeType: 'application/json' });
  });

  it('a `text` format is the default: nothing is sent for it', async () => {
    const { body } = await sent('openai', { ...conversation, responseFormat: { type: 'text' } });
    expect(body).not.toHaveProperty('text');
  });
});

describe('what a provider cannot honour is a 400 naming the provider and the member, before any request', () => {
  const without = (change: Partial<Conversation>) => ({ ...conversation, ...change });
  it.each<[string, Conversation, string]>([
    ['openai', without({ sampling: { stop: ['END'] } }), 'provider "openai" cannot honour stop'],
    ['openai', without({ sampling: { seed: 7 } }), 'provider "openai" cannot honour seed'],
    ['anthropic', without({ responseFormat: { type: 'json_object' } }), 'provider "anthropic" cannot honour response_format json_object'],
    ['anthropic', without({ responseFormat: { type: 'json_schema', name: 'a', schema: {} } }), 'provider "anthropic" cannot honour response_format json_schema'],
    ['anthropic', without({ sampling: { seed: 7 } }), 'provider "anthropic" cannot honour seed'],
    [
      'anthropic',
      without({ messages: [{ role: 'user', text: 'Hi' }, { role: 'assistant', text: '', toolCalls: [{ id: 'call_9', name: 'f', arguments: '[1,2]' }] }, { role: 'tool', toolCallId: 'call_9', text: 'ok' }] }),
      'provider "anthropic" cannot honour tool call arguments that are not a JSON object (tool call "call_9")',
    ],
    [
      'google',
      without({ messages: [{ role: 'user', text: 'Hi' }, { role: 'tool', toolCallId: 'call_404', text: 'ok' }] }),
      'provider "google" cannot honour a tool result whose tool_call_id "call_404" names no earlier tool call',
    ],
  ])('%s: %#', async (id, asked, message) => {
    const registry = registryFor(fake);
    for (const started of [() => registry.generate(id, call(id, { conversation: asked }), within(5_000)), () => registry.stream(id, call(id, { conversation: asked }), within(5_000))]) {
      const error = await domainRejection(started());
      expect(error).toMatchObject({ code: 'invalid_request', status: 400, message });
      expect(() => registry.checkConversation(id, asked)).toThrow(message);
    }
    expect(fake.requestCount).toBe(0);
  });
});
