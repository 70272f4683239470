/**
 * Answers that call tools, in each wire format, read whole and streamed through the registry:
 * the calls (id, name, arguments), the text beside them, why the model stopped, and a second
 * turn that answers the calls, which the fake checks the way the provider does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AnswerPiece, type Conversation, type ProviderTextStream, ToolCallAssembly, type ToolCall } from '../../src/providers/index.js';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { call, OPERATOR_ID, PERSONA_SYSTEM, registryFor, within } from './provider-test-kit.js';

let fake: FakeProviderServer;
beforeAll(async () => {
  fake = await startFakeProviderServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** One provider per wire format, plus Mistral (its own Chat Completions dialect) and an operator endpoint. */
const formats = ['openai', 'groq', 'mistral', OPERATOR_ID, 'anthropic', 'google'];

const CALLS = [
  { name: 'get_weather', arguments: { city: 'Rome', units: 'celsius' } },
  { name: 'get_time', arguments: { zone: 'Europe/Rome' } },
];

const asked: Conversation = {
  system: PERSONA_SYSTEM,
  messages: [{ role: 'user', text: 'Weather and time in Rome?' }],
  tools: [
    { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, units: { type: 'string' } } } },
    { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
  ],
};

/** What a call says, without its id (a provider makes a new one each time). */
const said = (calls: ToolCall[]) => calls.map(({ name, arguments: args }) => ({ name, arguments: JSON.parse(args) as unknown }));

async function streamed(stream: ProviderTextStream): Promise<{ text: string; toolCalls: ToolCall[]; pieces: AnswerPiece[] }> {
  const assembly = new ToolCallAssembly();
  const pieces: AnswerPiece[] = [];
  let text = '';
  for await (const piece of stream.pieces) {
    pieces.push(piece);
    if (typeof piece === 'string') text += piece;
    else assembly.add(piece);
  }
  return { text, toolCalls: assembly.toolCalls(), pieces };
}

describe.each(formats)('%s: an answer that calls tools', (id) => {
  it('is read whole: no text, each call with its id, name and JSON arguments, finish reason tool_calls', async () => {
    fake.setBehaviour({ mode: 'ok', toolCalls: CALLS });
    const answer = await registryFor(fake).generate(id, call(id, { conversation: asked }), within(5_000));
    expect(answer.text).toBe('');
    expect(said(answer.toolCalls)).toEqual(CALLS);
    expect(new Set(answer.toolCalls.map((c) => c.id)).size).toBe(2);
    for (const { id: callId } of answer.toolCalls) expect(callId).toMatch(/^[\w-]+$/);
    expect(answer.finishReason).toBe('tool_calls');
  });

  it.each([1, 4, 1000])('is read streamed, whatever the split (%i characters a piece), as the same calls', async (pieceChars) => {
    fake.setBehaviour({ mode: 'ok', toolCalls: CALLS, pieceChars });
    const stream = await registryFor(fake).stream(id, call(id, { conversation: asked }), within(5_000));
    const { text, toolCalls, pieces } = await streamed(stream);
    expect(text).toBe('');
    // The stream resolved on a part of a tool call: there was no text to wait for.
    expect(typeof pieces[0]).toBe('object');
    expect(said(toolCalls)).toEqual(CALLS);
    expect(new Set(toolCalls.map((c) => c.id)).size).toBe(2);
    expect(stream.finishReason()).toBe('tool_calls');
  });

  it('keeps the text said before the calls, whole and streamed', async () => {
    fake.setBehaviour({ mode: 'ok', reply: 'Let me check both.', toolCalls: CALLS.slice(0, 1) });
    const registry = registryFor(fake);
    const whole = await registry.generate(id, call(id, { conversation: asked }), within(5_000));
    expect(whole).toMatchObject({ text: 'Let me check both.', finishReason: 'tool_calls' });
    expect(said(whole.toolCalls)).toEqual(CALLS.slice(0, 1));
    const stream = await registry.stream(id, call(id, { conversation: asked }), within(5_000));
    const { text, toolCalls, pieces } = await streamed(stream);
    expect(text).toBe('Let me check both.');
    expect(typeof pieces[0]).toBe('string');
    expect(said(toolCalls)).toEqual(CALLS.slice(0, 1));
  });

  it('says `stop` for a plain answer and `length` for one cut at the token limit, whole and streamed', async () => {
    const registry = registryFor(fake);
    expect((await registry.generate(id, call(id), within(5_000))).finishReason).toBe('stop');
    fake.setBehaviour({ mode: 'ok', truncated: true });
    expect((await registry.generate(id, call(id), within(5_000))).finishReason).toBe('length');
    for (const truncated of [false, true]) {
      fake.setBehaviour({ mode: 'ok', truncated });
      const stream = await registry.stream(id, call(id), within(5_000));
      await streamed(stream);
      expect(stream.finishReason()).toBe(truncated ? 'length' : 'stop');
    }
  });

  it('takes the calls back, answered, in the next turn (the provider checks each result answers a call)', async () => {
    fake.setBehaviour({ mode: 'ok', toolCalls: CALLS });
    const registry = registryFor(fake);
    const first = await registry.generate(id, call(id, { conversation: asked }), within(5_000));
    fake.setBehaviour({ mode: 'ok', reply: 'Sunny, 25 degrees; it is noon.' });
    const next: Conversation = {
      ...asked,
      messages: [
        ...asked.messages,
        { role: 'assistant', text: first.text, toolCalls: first.toolCalls },
        ...first.toolCalls.map((toolCall, i) => ({ role: 'tool' as const, toolCallId: toolCall.id, text: i === 0 ? '{"celsius":25,"sky":"sunny"}' : '12:00' })),
      ],
    };
    const second = await registry.generate(id, call(id, { conversation: next }), within(5_000));
    expect(second).toMatchObject({ text: 'Sunny, 25 degrees; it is noon.', toolCalls: [], finishReason: 'stop' });
  });
});

describe('the fake refuses what the provider refuses', () => {
  it.each(['openai', 'groq', 'anthropic'])('%s: a tool result that answers no call of the turn before is a 400', async (id) => {
    const orphan: Conversation = { system: PERSONA_SYSTEM, messages: [{ role: 'user', text: 'Hi' }, { role: 'tool', toolCallId: 'call_404', text: 'ok' }] };
    await expect(registryFor(fake).generate(id, call(id, { conversation: orphan }), within(5_000))).rejects.toMatchObject({
      code: 'provider_rejected_request',
      message: expect.stringContaining('(HTTP 400)'),
    });
    expect(fake.requestCount).toBe(1);
  });
});

describe('google: calls have no id on the wire', () => {
  it('numbers them call_0, call_1… in the order of the answer, the same whole and streamed', async () => {
    fake.setBehaviour({ mode: 'ok', toolCalls: CALLS, pieceChars: 2 });
    const registry = registryFor(fake);
    const whole = await registry.generate('google', call('google', { conversation: asked }), within(5_000));
    const { toolCalls } = await streamed(await registry.stream('google', call('google', { conversation: asked }), within(5_000)));
    expect(whole.toolCalls.map((c) => c.id)).toEqual(['call_0', 'call_1']);
    expect(toolCalls).toEqual(whole.toolCalls);
  });
});
