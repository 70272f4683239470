/**
 * POST /v1/chat/completions driven by the official `openai` package with only its base URL
 * set, against the fake providers in all four wire formats, on both engines: the persona's
 * instructions first and the caller's messages in order, one provider call when the answer
 * keeps the rules and two when a required rule needs the repair, tool calls round-tripped,
 * a stream that says exactly what the whole answer says, and every error class the client
 * raises, carrying our message.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { storageTargets } from '../helpers/storage-targets.js';

/** One provider per wire format: Responses, Chat Completions, Anthropic Messages, Gemini. */
const WIRE_FORMATS = [['openai', 'Responses'], ['groq', 'Chat Completions'], ['anthropic', 'Messages'], ['google', 'Gemini']] as const;

const PERSONA = { name: 'Acme Support', attributes: { tone: 'warm and direct', avoid: ['synergy'], favouriteColour: 'teal' } };

const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather now in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe.each(storageTargets)('POST /v1/chat/completions through the openai package ($engine)', (target) => {
  let f: RefineFixture;
  let personaId: string;
  const client = (provider: string, headers: Record<string, string | null> = {}, apiKey = f.server.key) =>
    new OpenAI({
      apiKey, baseURL: `${f.server.url}/v1`, maxRetries: 0,
      defaultHeaders: { 'X-Persona': personaId, 'X-Provider-Api-Key': callerKey(provider), ...headers },
    });

  beforeAll(async () => {
    f = await startRefineFixture({ target });
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: PERSONA })).json()).id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  describe.each(WIRE_FORMATS)('%s (%s)', (provider) => {
    it('sends the persona\'s instructions first, then the caller\'s messages in order, and answers a chat.completion with the persona headers', async () => {
      f.fake.setBehaviour({ mode: 'ok', reply: 'Bonjour! It is sunny in Paris today.' });
      const { data, response } = await client(provider).chat.completions
        .create({
          model: provider,
          messages: [
            { role: 'system', content: 'CALLER-SYSTEM: answer briefly.' },
            { role: 'user', content: 'CALLER-FIRST: hello' },
            { role: 'assistant', content: 'CALLER-ASSISTANT: hi, how can I help?' },
            { role: 'user', content: [{ type: 'text', text: 'CALLER-SECOND: ' }, { type: 'text', text: 'the weather in Paris?' }] },
          ],
          temperature: 0.3,
        })
        .withResponse();
      expect(data.object).toBe('chat.completion');
      expect(data.choices).toEqual([{ index: 0, message: { role: 'assistant', content: 'Bonjour! It is sunny in Paris today.' }, finish_reason: 'stop' }]);
      expect(data.model).toBe(response.headers.get('x-provider'));
      expect(data.model.startsWith(`${provider}/`)).toBe(true);
      expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
      expect(data.usage!.completion_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-persona-rules')).toBe('applied');
      expect(response.headers.get('x-persona-version')).toBe('1');
      expect(response.headers.get('x-persona-score')).toBe('100');
      expect(response.headers.get('x-usage')).toBe(`input_tokens=${data.usage!.prompt_tokens}, output_tokens=${data.usage!.completion_tokens}, provider_calls=1`);
      expect(response.headers.get('x-request-id')).toBeTruthy();

      expect(f.fake.requests).toHaveLength(1);
      const sent = JSON.stringify(f.fake.requests[0]!.body);
      const order = ['Acme Support', 'warm and direct', 'CALLER-SYSTEM', 'CALLER-FIRST', 'CALLER-ASSISTANT', 'CALLER-SECOND'].map((marker) => sent.indexOf(marker));
      expect(order.every((at) => at >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      // Generating, not rewriting: the refine's delimiters never reach the provider.
      expect(sent).not.toContain('text-to-rewrite');
    });

    it('makes one provider call when the answer keeps the rules, two when a required rule needs the repair', async () => {
      f.fake.enqueue({ mode: 'ok', reply: 'We bring synergy to your weekend.' }, { mode: 'ok', reply: 'We bring teamwork to your weekend.' });
      const { data, response } = await client(provider).chat.completions.create({ model: provider, messages: [{ role: 'user', content: 'Pitch us.' }] }).withResponse();
      expect(data.choices[0]!.message.content).toBe('We bring teamwork to your weekend.');
      expect(f.fake.requests).toHaveLength(2);
      expect(response.headers.get('x-usage')).toMatch(/provider_calls=2$/);
      expect(response.headers.get('x-persona-violations')).toBeNull();
      const spent = data.usage!;
      expect(spent.prompt_tokens).toBeGreaterThan(0);
    });

    it('round-trips tool calls: the answer is the provider\'s calls (rules skipped), and the results go back to it', async () => {
      f.fake.setBehaviour({ mode: 'ok', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
      const openai = client(provider);
      const asked = [{ role: 'user' as const, content: 'Weather in Paris?' }];
      const { data, response } = await openai.chat.completions.create({ model: provider, messages: asked, tools: [WEATHER_TOOL], tool_choice: 'auto' }).withResponse();
      const choice = data.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      expect(choice.message.tool_calls).toHaveLength(1);
      const call = choice.message.tool_calls![0]!;
      expect(call.type === 'function' && call.function.name).toBe('get_weather');
      expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
      expect(response.headers.get('x-persona-rules')).toBe('skipped');

      // The fake refuses a tool result that answers no call of the previous assistant turn.
      f.fake.reset();
      f.fake.setBehaviour({ mode: 'ok', reply: 'It is 21 degrees and sunny in Paris.' });
      const after = await openai.chat.completions.create({
        model: provider,
        tools: [WEATHER_TOOL],
        messages: [...asked, choice.message, { role: 'tool', tool_call_id: call.id, content: '{"celsius":21}' }],
      });
      expect(after.choices[0]!.message.content).toBe('It is 21 degrees and sunny in Paris.');
      const sent = JSON.stringify(f.fake.requests[0]!.body);
      expect(sent).toContain('celsius');
      expect(sent).toContain('get_weather');
    });

    it.each([1, 3, 7])('streams exactly what the whole answer says (pieces of %i characters), role first, usage chunk, [DONE]', async (pieceChars) => {
      const reply = 'Hello there!   Your order ships Monday, with care.';
      f.fake.setBehaviour({ mode: 'ok', reply });
      const whole = await client(provider).chat.completions.create({ model: provider, messages: [{ role: 'user', content: 'Status?' }] });
      f.fake.setBehaviour({ mode: 'ok', reply, pieceChars });
      const stream = await client(provider).chat.completions.create({
        model: provider, messages: [{ role: 'user', content: 'Status?' }], stream: true, stream_options: { include_usage: true },
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
      const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
      expect(text).toBe(whole.choices[0]!.message.content);
      expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
      const usage = chunks.at(-1)!;
      expect(usage.choices).toEqual([]);
      expect(usage.usage!.completion_tokens).toBeGreaterThan(0);
    });

    it('streams tool calls as one delta.tool_calls chunk with finish_reason tool_calls', async () => {
      f.fake.setBehaviour({ mode: 'ok', toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] });
      const stream = await client(provider).chat.completions.create({ model: provider, messages: [{ role: 'user', content: 'Rome?' }], tools: [WEATHER_TOOL], stream: true });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.function!.name).toBe('get_weather');
      expect(JSON.parse(calls[0]!.function!.arguments!)).toEqual({ city: 'Rome' });
      expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
    });

    it('a provider refusing the caller\'s key is an AuthenticationError naming the refusal; its 429 a RateLimitError with Retry-After', async () => {
      f.fake.setBehaviour('rejectKey');
      const refused = await client(provider).chat.completions.create({ model: provider, messages: [{ role: 'user', content: 'Hi' }] }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
      expect((refused as Error).message).toMatch(new RegExp(`provider "${provider}" rejected providerApiKey \\(HTTP 40[0-3]\\)`));
      expect((refused as Error).message).not.toContain(callerKey(provider).slice(0, 10));

      f.fake.setBehaviour({ mode: 'rateLimit', retryAfterSeconds: 7 });
      const limited = await client(provider).chat.completions.create({ model: provider, messages: [{ role: 'user', content: 'Hi' }] }).catch((error: unknown) => error);
      expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
      const rateLimit = limited as InstanceType<typeof OpenAI.RateLimitError>;
      expect(rateLimit.headers.get('retry-after')).toBe('7');
      expect(rateLimit.message).toContain(`provider "${provider}" is rate limiting requests (HTTP 429)`);
    });
  });

  describe('errors in OpenAI\'s body, raised by the client as its own classes with our message', () => {
    const ask = (openai: OpenAI, body: Record<string, unknown> = {}) =>
      openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Hi' }], ...body } as never).catch((error: unknown) => error);

    it('AuthenticationError for a bad service key', async () => {
      const error = await ask(client('openai', {}, 'prk_test_not-a-real-key-FAKE'));
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((error as { error: unknown }).error).toMatchObject({ type: 'authentication_error', code: 'unauthorized', param: null });
    });

    it('PermissionDeniedError for a key without the refine scope', async () => {
      const { secret } = await (await f.server.request('/v1/keys', { method: 'POST', json: { name: 'reader', scopes: ['personas:read'] } })).json();
      const error = await ask(client('openai', {}, secret as string));
      expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect((error as Error).message).toContain('this key lacks the scope "refine"');
    });

    it('NotFoundError for an unknown persona', async () => {
      const error = await ask(client('openai', { 'X-Persona': 'no-such-persona' }));
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(f.fake.requests).toHaveLength(0);
    });

    it.each([
      ['no persona', { 'X-Persona': null }, {}, /^400 the persona is missing: send its id in the X-Persona header/],
      ['an unknown provider', {}, { model: 'nosuch/model-1' }, /unknown provider "nosuch".*openai, anthropic, google/],
      ['the rules provider', {}, { model: 'rules' }, /"rules"/],
      ['n > 1', {}, { n: 2 }, /^400 n must be 1/],
      ['an image part', {}, { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] }, /only text parts are supported/],
    ])('BadRequestError for %s, before any provider call', async (_what, headers, body, message) => {
      const error = await ask(client('openai', headers as Record<string, string | null>), body);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as Error).message).toMatch(message);
      expect(f.fake.requests).toHaveLength(0);
    });

    it('takes the persona from the body\'s persona member, pinned to a version, and ignores members it does not know', async () => {
      f.fake.setBehaviour({ mode: 'ok', reply: 'Fine, thanks.' });
      const openai = new OpenAI({ apiKey: f.server.key, baseURL: `${f.server.url}/v1`, maxRetries: 0, defaultHeaders: { 'X-Provider-Api-Key': callerKey('openai') } });
      const { response } = await openai.chat.completions
        .create({ model: 'openai/gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], persona: `${personaId}:1`, logprobs: false, frequency_penalty: 0 } as never)
        .withResponse();
      expect(response.headers.get('x-persona-version')).toBe('1');
      expect(f.fake.requests[0]!.model).toBe('gpt-5.4-mini');
    });
  });

  it('GET /v1/models lists every provider\'s default model in OpenAI\'s shape', async () => {
    const models = [];
    for await (const model of client('openai').models.list()) models.push(model);
    const ids = models.map((model) => model.id);
    expect(ids).toContain('openai/gpt-5.4-mini');
    expect(ids).toContain('localllm/llama3.2');
    expect(models.every((model) => model.object === 'model' && model.id.startsWith(`${model.owned_by}/`))).toBe(true);
  });
});
