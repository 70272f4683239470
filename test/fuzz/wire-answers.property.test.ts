/**
 * The wire formats' answer parsers, as properties: for any text and tool calls a model might
 * answer, split into any pieces, a stream read event by event says what the whole answer says
 * (text, calls, finish reason); and no event an attacker or a broken server sends makes a
 * reader throw (a throw would be a 500 of ours, not the provider's failure).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolCallAssembly } from '../../src/providers/index.js';
import { anthropicMessages } from '../../src/providers/wire/anthropic-messages.js';
import { chatCompletions } from '../../src/providers/wire/chat-completions.js';
import { googleGenerateContent } from '../../src/providers/wire/google-generate-content.js';
import { openAIResponses } from '../../src/providers/wire/openai-responses.js';
import { ServerSentEventParser } from '../../src/providers/wire/server-sent-events.js';
import type { WireFormat } from '../../src/providers/wire/wire-format.js';
import { piecesOf, streamScript } from '../fakes/provider-streams.js';
import { type FakeToolCall, withToolCalls } from '../fakes/provider-tool-calls.js';
import { successBody, type WireApi } from '../fakes/provider-wire-formats.js';

const RUNS = process.env.FUZZ_RUNS === undefined ? 300 : Number(process.env.FUZZ_RUNS);

const formats: [WireApi, WireFormat][] = [
  ['openai-responses', openAIResponses],
  ['openai-chat', chatCompletions],
  ['anthropic-messages', anthropicMessages],
  ['google-generate-content', googleGenerateContent],
];

const text = fc.oneof(fc.constant(''), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }));
const toolCall: fc.Arbitrary<FakeToolCall> = fc.record({
  name: fc.stringMatching(/^[a-z_][a-z0-9_]{0,20}$/),
  // As JSON says them: a -0 the model could not write comes back 0.
  arguments: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((args) => JSON.parse(JSON.stringify(args)) as Record<string, unknown>),
});
const answer = fc
  .record({ text, toolCalls: fc.array(toolCall, { maxLength: 3 }), truncated: fc.boolean(), pieceChars: fc.integer({ min: 1, max: 40 }) })
  // A model says something: text, or a call.
  .filter((a) => a.text !== '' || a.toolCalls.length > 0);

/** The data of each event, the events written one chunk each. */
function eventData(events: string[]): string[] {
  const parser = new ServerSentEventParser(1 << 20);
  return events.flatMap((event) => parser.push(Buffer.from(event, 'utf8')));
}

describe.each(formats)('%s', (api, wire) => {
  it('a stream, however split, says what the whole answer says', async () => {
    await fc.assert(
      fc.asyncProperty(answer, async ({ text: said, toolCalls, truncated, pieceChars }) => {
        const whole = wire.answer(withToolCalls(api, successBody(api, 'm', 'u', said) as Record<string, unknown>, said, { toolCalls, truncated }));
        const script = streamScript(api, 'openai', 'm', 'u', piecesOf(said, pieceChars), true, undefined, { toolCalls, truncated }, pieceChars);
        const read = wire.streamReader();
        const assembly = new ToolCallAssembly();
        let streamed = '';
        let finishReason;
        for (const data of eventData([...script.head, ...script.pieces, ...script.tail])) {
          const event = read(data === '[DONE]' ? data : JSON.parse(data));
          streamed += event?.text ?? '';
          for (const delta of event?.toolCalls ?? []) assembly.add(delta);
          finishReason = event?.finishReason ?? finishReason;
        }
        const calls = assembly.toolCalls();
        expect(streamed).toBe(whole?.text);
        expect(calls.map(({ name, arguments: args }) => ({ name, arguments: JSON.parse(args) as unknown }))).toEqual(toolCalls);
        expect(whole?.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: JSON.parse(args) as unknown }))).toEqual(toolCalls);
        expect(finishReason).toBe(whole?.finishReason);
        expect(whole?.finishReason).toBe(truncated ? 'length' : toolCalls.length > 0 ? 'tool_calls' : 'stop');
      }),
      { numRuns: RUNS },
    );
  });

  it('no event makes the reader or the answer parser throw', () => {
    const types = ['response.output_item.added', 'response.function_call_arguments.delta', 'response.completed', 'content_block_start', 'content_block_delta', 'message_delta', 'error'];
    const hostile = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record({ type: fc.constantFrom(...types), index: fc.jsonValue({ maxDepth: 1 }), output_index: fc.jsonValue({ maxDepth: 1 }), item: fc.jsonValue({ maxDepth: 2 }), delta: fc.jsonValue({ maxDepth: 2 }), content_block: fc.jsonValue({ maxDepth: 2 }), response: fc.jsonValue({ maxDepth: 3 }) }),
      fc.record({ choices: fc.array(fc.record({ delta: fc.record({ tool_calls: fc.jsonValue({ maxDepth: 3 }), content: fc.jsonValue({ maxDepth: 1 }) }), finish_reason: fc.jsonValue({ maxDepth: 1 }), message: fc.jsonValue({ maxDepth: 3 }) })) }),
      fc.record({ candidates: fc.array(fc.record({ content: fc.record({ parts: fc.array(fc.record({ functionCall: fc.jsonValue({ maxDepth: 2 }), text: fc.jsonValue({ maxDepth: 1 }) })) }), finishReason: fc.jsonValue({ maxDepth: 1 }) })) }),
    );
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 12 }), (events) => {
        const read = wire.streamReader();
        for (const event of events) {
          read(event);
          wire.answer(event);
        }
      }),
      { numRuns: RUNS * 3 },
    );
  });
});
