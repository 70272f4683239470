/**
 * POST /v1/chat/completions under random and hostile requests, against a fake provider that
 * answers: never a 5xx, every error exactly OpenAI's body with the response's status, and the
 * server stays healthy. FUZZ_RUNS scales the case count, as for the other fuzz tests.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('\ud800', 'a\u0000b', '', ' ', '{{7*7}}', 'openai', 'openai/', '/gpt', 'rules', 'google/x', 'anthropic//', 'n'.repeat(300)),
);
const scalar = fc.oneof(hostileString, fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
const part = fc.oneof(
  fc.record({ type: fc.constantFrom('text', 'image_url', 'input_audio', 'file', ''), text: fc.option(hostileString, { nil: undefined }) }, { requiredKeys: ['type'] }),
  scalar,
);
const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool'), hostileString),
    content: fc.oneof(hostileString, fc.array(part, { maxLength: 3 }), fc.constant(null), scalar),
    tool_call_id: hostileString,
    tool_calls: fc.array(fc.record({ id: hostileString, type: fc.constantFrom('function', 'x'), function: fc.record({ name: hostileString, arguments: hostileString }) }), { maxLength: 2 }),
  },
  { requiredKeys: ['role'] },
);
const body = fc.record(
  {
    model: fc.oneof(fc.constantFrom('openai', 'anthropic/claude-haiku-4-5', 'groq', 'google', 'localllm/llama3.2', 'rules', 'nosuch/x'), hostileString),
    messages: fc.oneof(fc.array(message, { minLength: 0, maxLength: 4 }), scalar),
    persona: hostileString,
    n: fc.oneof(fc.integer({ min: -1, max: 3 }), scalar),
    stream: fc.oneof(fc.boolean(), scalar),
    temperature: fc.oneof(fc.double(), scalar),
    max_tokens: fc.oneof(fc.integer(), scalar),
    stop: fc.oneof(hostileString, fc.array(hostileString, { maxLength: 6 })),
    response_format: fc.oneof(fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema', 'yaml') }), scalar),
    tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required', 'sometimes'), scalar),
    tools: fc.array(fc.record({ type: fc.constantFrom('function', 'web'), function: fc.record({ name: hostileString }) }), { maxLength: 2 }),
    unknown_member: scalar,
  },
  { requiredKeys: [] },
);

describe('POST /v1/chat/completions fuzzed', () => {
  let f: RefineFixture;
  let personaId: string;

  beforeAll(async () => {
    f = await startRefineFixture({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Fuzzed', attributes: { avoid: ['synergy'] } } })).json()).id;
    f.fake.setBehaviour({ mode: 'ok', reply: 'Fine, with synergy.' });
  });
  afterAll(() => f.close());

  it('never a 5xx; every error is OpenAI\'s body with the response\'s status', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('header', 'body', 'none'), async (request, personaFrom) => {
        const json = personaFrom === 'body' ? { ...request, persona: personaId } : request;
        const res = await f.server.request('/v1/chat/completions', {
          method: 'POST',
          headers: { 'x-provider-api-key': callerKey('openai'), ...(personaFrom === 'header' ? { 'x-persona': personaId } : {}) },
          json,
        });
        const text = await res.text();
        const label = `${res.status} ${text.slice(0, 300)}`;
        expect(res.status, label).toBeLessThan(500);
        if (res.status >= 400) {
          const error = JSON.parse(text);
          expect(Object.keys(error), label).toEqual(['error']);
          expect(Object.keys(error.error).sort(), label).toEqual(['code', 'message', 'param', 'type']);
          expect(typeof error.error.message, label).toBe('string');
        }
      }),
      { numRuns: RUNS },
    );
    expect((await f.server.request('/healthz', { key: null })).status).toBe(200);
  });
});
