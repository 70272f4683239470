import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProviderRegistry, singleTurn } from '../../src/providers/index.js';
import { type FakeProviderServer, type RecordedRequest, startFakeProviderServer } from '../fakes/provider-server.js';
import { OPERATOR_ID, OPERATOR_MODEL, PERSONA_SYSTEM, allIds, call, keyFor, registryFor, within } from './provider-test-kit.js';

let fake: FakeProviderServer;
beforeAll(async () => {
  fake = await startFakeProviderServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const system = PERSONA_SYSTEM;
const user = (call('openai').conversation.messages[0] as { text: string }).text;

async function roundTrip(id: string, model?: string): Promise<RecordedRequest> {
  const answer = await registryFor(fake).generate(id, call(id, { model }), within(5_000));
  expect(answer).toMatchObject({ text: `Rewritten: ${user}`, attempts: 1 });
  expect(answer.durationMs).toBeGreaterThanOrEqual(0);
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0] as RecordedRequest;
}

/** Chat completions: the system message first, then the user's (a string or text parts, both valid). */
function expectChatCompletions(request: RecordedRequest, model: string): void {
  expect(request.body).toMatchObject({
    model,
    messages: [{ role: 'system', content: system }, { role: 'user' }],
  });
  expect(request.userText).toBe(user);
}

describe('what each provider receives', () => {
  it('openai: Responses API, Bearer key, system prompt as instructions, nothing stored', async () => {
    const request = await roundTrip('openai');
    expect(request.path).toBe('/openai/v1/responses');
    expect(request.headers.authorization).toBe(`Bearer ${keyFor('openai')}`);
    expect(request.body).toMatchObject({
      model: 'gpt-5.4-mini',
      store: false,
      instructions: system,
      input: [{ role: 'user', content: [{ type: 'input_text', text: user }] }],
    });
  });

  it('anthropic: Messages API, x-api-key and anthropic-version, system as a top-level field', async () => {
    const request = await roundTrip('anthropic');
    expect(request.path).toBe('/anthropic/v1/messages');
    expect(request.headers['x-api-key']).toBe(keyFor('anthropic'));
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toMatchObject({
      model: 'claude-haiku-4-5',
      max_tokens: 1024,
      system,
      messages: [{ role: 'user', content: user }],
    });
  });

  it('anthropic: max_tokens grows with the text and stays within the model\'s limit', async () => {
    const long = 'word '.repeat(40_000);
    const sent = async (model: string) => {
      fake.reset();
      await registryFor(fake).generate('anthropic', call('anthropic', { model, conversation: singleTurn(system, long) }), within(5_000));
      return (fake.requests[0]!.body as { max_tokens: number }).max_tokens;
    };
    expect(await sent('claude-haiku-4-5')).toBe(64_000);
    expect(await sent('claude-3-5-haiku-latest')).toBe(8_192);
    expect(await sent('claude-3-haiku-20240307')).toBe(4_096);
    expect(await sent('claude-future-model')).toBe(8_192);
  });

  it('google: generateContent, key in x-goog-api-key (never in the URL), systemInstruction', async () => {
    const request = await roundTrip('google');
    expect(request.path).toBe('/google/v1beta/models/gemini-flash-latest:generateContent');
    expect(request.headers['x-goog-api-key']).toBe(keyFor('google'));
    expect(request.body).toMatchObject({
      systemInstruction: { parts: [{ text: system }] },
      contents: [{ role: 'user', parts: [{ text: user }] }],
    });
  });

  it.each([
    ['mistral', '/mistral/v1/chat/completions', 'mistral-small-latest'],
    ['groq', '/groq/openai/v1/chat/completions', 'llama-3.3-70b-versatile'],
    ['deepseek', '/deepseek/chat/completions', 'deepseek-v4-flash'],
    ['xai', '/xai/v1/chat/completions', 'grok-4-1-fast-non-reasoning'],
    [OPERATOR_ID, `/${OPERATOR_ID}/v1/chat/completions`, OPERATOR_MODEL],
  ])('%s: chat completions at %s, Bearer key, system message first', async (id, path, model) => {
    const request = await roundTrip(id);
    expect(request.path).toBe(path);
    expect(request.headers.authorization).toBe(`Bearer ${keyFor(id)}`);
    expectChatCompletions(request, model);
  });

  it('openai over chat completions, declared by the operator as an OpenAI-compatible provider', async () => {
    const registry = createProviderRegistry({
      baseUrls: { 'openai-chat': fake.baseUrl('openai') },
      models: { 'openai-chat': 'gpt-4.1-mini' },
    });
    const answer = await registry.generate('openai-chat', call('openai'), within(5_000));
    expect(answer.text).toBe(`Rewritten: ${user}`);
    const request = fake.requests[0] as RecordedRequest;
    expect(request.path).toBe('/openai/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${keyFor('openai')}`);
    expectChatCompletions(request, 'gpt-4.1-mini');
  });
});

describe('models', () => {
  it.each(allIds)('%s: the call model replaces the default', async (id) => {
    const request = await roundTrip(id, 'custom-model-1');
    expect(request.model).toBe('custom-model-1');
  });

  it('PROVIDER_MODEL_<ID> replaces the built-in default, and the answer names the model used', async () => {
    const registry = createProviderRegistry({
      baseUrls: { anthropic: fake.baseUrl('anthropic') },
      models: { anthropic: 'claude-sonnet-4-5' },
    });
    expect(registry.defaultModel('anthropic')).toBe('claude-sonnet-4-5');
    const answer = await registry.generate('anthropic', call('anthropic'), within(5_000));
    expect(answer.model).toBe('claude-sonnet-4-5');
    expect(fake.requests[0]?.model).toBe('claude-sonnet-4-5');
  });

  it('returns the reply text as the provider wrote it', async () => {
    fake.setBehaviour({ mode: 'ok', reply: '  Ahoy! Maintenance tonight.\n' });
    const answer = await registryFor(fake).generate('google', call('google'), within(5_000));
    expect(answer.text).toBe('  Ahoy! Maintenance tonight.\n');
  });
});
