/**
 * POST /v1/chat/completions driven by the Vercel AI SDK (`ai` + `@ai-sdk/openai-compatible`)
 * with only a base URL and headers: generateText and streamText, text and a tool call, in all
 * four wire formats, on both engines.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

const WIRE_FORMATS = ['openai', 'groq', 'anthropic', 'google'] as const;

describe.each(storageTargets)('POST /v1/chat/completions through the AI SDK ($engine)', (target) => {
  let f: RefineFixture;
  let personaId: string;
  const modelFor = (provider: string) =>
    createOpenAICompatible({
      name: 'persona-refine',
      baseURL: `${f.server.url}/v1`,
      apiKey: f.server.key,
      headers: { 'X-Persona': personaId, 'X-Provider-Api-Key': callerKey(provider) },
      includeUsage: true,
    }).chatModel(provider);

  beforeAll(async () => {
    f = await startRefineFixture({ target });
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Ada', attributes: { tone: 'dry wit', avoid: ['synergy'] } } })).json()).id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  describe.each(WIRE_FORMATS)('%s', (provider) => {
    it('generateText answers the persona\'s text with the usage of every call (the repair\'s included)', async () => {
      f.fake.enqueue({ mode: 'ok', reply: 'Pure synergy, obviously.' }, { mode: 'ok', reply: 'Pure teamwork, obviously.' });
      const result = await generateText({ model: modelFor(provider), system: 'Be brief.', prompt: 'How do we win?', maxRetries: 0 });
      expect(result.text).toBe('Pure teamwork, obviously.');
      expect(result.finishReason).toBe('stop');
      expect(f.fake.requests).toHaveLength(2);
      expect(result.response.headers?.['x-usage']).toMatch(/provider_calls=2$/);
      expect(result.usage.inputTokens).toBeGreaterThan(0);
      expect(result.usage.outputTokens).toBeGreaterThan(0);
      const sent = JSON.stringify(f.fake.requests[0]!.body);
      expect(sent.indexOf('dry wit')).toBeLessThan(sent.indexOf('Be brief.'));
      expect(sent.indexOf('Be brief.')).toBeLessThan(sent.indexOf('How do we win?'));
    });

    it('streamText streams what generateText answers for the same provider answer', async () => {
      const reply = 'Well.   That went about as planned, which is to say: not at all.';
      f.fake.setBehaviour({ mode: 'ok', reply });
      const whole = await generateText({ model: modelFor(provider), prompt: 'How did it go?', maxRetries: 0 });
      f.fake.setBehaviour({ mode: 'ok', reply, pieceChars: 2 });
      const streamed = streamText({ model: modelFor(provider), prompt: 'How did it go?', maxRetries: 0 });
      let text = '';
      for await (const piece of streamed.textStream) text += piece;
      expect(text).toBe(whole.text);
      expect((await streamed.usage).outputTokens).toBeGreaterThan(0);
      expect(await streamed.finishReason).toBe('stop');
    });

    it('generateText gets the provider\'s tool call', async () => {
      f.fake.setBehaviour({ mode: 'ok', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
      const result = await generateText({
        model: modelFor(provider),
        prompt: 'Weather in Oslo?',
        maxRetries: 0,
        tools: { get_weather: tool({ description: 'The weather now in a city.', inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) }) },
      });
      expect(result.toolCalls).toHaveLength(1);
      expect(result.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'Oslo' } });
      expect(result.finishReason).toBe('tool-calls');
    });
  });
});
