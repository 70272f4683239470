/**
 * The refine run given a whole conversation (what the chat route hands it), collected and
 * streamed, against the fake providers: the persona's instructions go first, the persona's
 * rules write the answer's text, and they stand aside for an answer of tool calls or JSON; a
 * generated answer is kept as the model wrote it, where a rewrite's wrappers would be removed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/errors.js';
import { createMetrics } from '../../src/metrics.js';
import { parseAttributes } from '../../src/personas/catalogue/index.js';
import { type Conversation, createProviderRegistry, type ProviderRegistry } from '../../src/providers/index.js';
import { SecretScrubber } from '../../src/providers/secret-scrubber.js';
import type { CompiledPersona } from '../../src/refine/compiled-personas.js';
import { buildSystemMessage } from '../../src/refine/prompt.js';
import { type RunEnd, type RunMode, runThroughProviders } from '../../src/refine/refine-run.js';
import { rulesFromValues } from '../../src/rules/index.js';
import { Judge } from '../../src/scoring/judge.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { UsageRepository } from '../../src/storage/usage-repository.js';
import { UsageRecorder } from '../../src/usage/usage-recorder.js';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { sqliteTarget } from '../helpers/storage-targets.js';

const KEY = 'sk-FAKE-not-a-key-run-conversation';
const attributes = { tone: 'warm', signOff: 'Cheers, Ada', avoid: ['synergy'] };
const { values } = parseAttributes(attributes);
const persona: CompiledPersona = {
  version: 3, name: 'Ada', attributes, rules: rulesFromValues(values), minScore: undefined, system: buildSystemMessage({ name: 'Ada', attributes }), invalid: [],
};

const chat = (extra: Partial<Conversation> = {}): Conversation => ({
  system: persona.system,
  messages: [
    { role: 'system', text: 'Keep it short.' },
    { role: 'user', text: 'How did the launch go?' },
  ],
  ...extra,
});

const WEATHER = [{ name: 'get_weather', arguments: { city: 'Rome' } }];

let storage: Storage;
let remove: () => Promise<void>;
let fake: FakeProviderServer;
let registry: ProviderRegistry;
let usage: UsageRecorder;
const metrics = createMetrics();

beforeAll(async () => {
  const database = await sqliteTarget.create();
  remove = database.remove;
  storage = await openStorage(database.config);
  fake = await startFakeProviderServer();
  registry = createProviderRegistry({ baseUrls: { openai: fake.baseUrl('openai'), anthropic: fake.baseUrl('anthropic'), google: fake.baseUrl('google') }, models: {} });
  usage = new UsageRecorder(new UsageRepository(storage.db), metrics, 60_000, () => {});
});
beforeEach(() => fake.reset());
afterAll(async () => {
  await fake.close();
  await storage.close();
  await remove();
});

/** Runs the conversation to its end: what was shown and the end. */
async function run(
  asked: Conversation, mode: RunMode, provider = 'openai', fallback?: string, answerKind: 'generated' | 'rewrite' = 'generated', judged = false,
): Promise<{ shown: string; end: RunEnd }> {
  const conversation = { ...asked, answerKind };
  const links = [provider, ...(fallback ? [fallback] : [])].map((id) => ({ provider: id, apiKey: KEY, model: registry.defaultModel(id) }));
  const dependencies = { providers: registry, metrics, timeoutMs: 10_000, usage, judge: new Judge(registry, usage, metrics) };
  const signal = new AbortController().signal;
  const scrubber = new SecretScrubber([KEY]);
  const judging = { accountId: 'acct-run', target: { provider: 'openai', apiKey: KEY, model: 'gpt-5.4-mini' }, persona, signal, timeoutMs: 10_000, scrubber };
  const job = { accountId: 'acct-run', persona, links, conversation, original: undefined, signal, scrubber, ...(judged ? { judging } : {}) };
  const { pieces } = await runThroughProviders(dependencies, job, mode);
  let shown = '';
  for (;;) {
    const next = await pieces.next();
    if (next.done) return { shown, end: next.value };
    shown += next.value;
  }
}

describe.each<RunMode>(['collect', 'stream'])('a conversation run (%s)', (mode) => {
  it('asks with the persona\'s instructions first and the caller\'s turns in order, and writes the answer in the persona\'s rules', async () => {
    fake.setBehaviour({ mode: 'ok', reply: 'It went well.' });
    const { shown, end } = await run(chat(), mode);
    expect(fake.requests[0]?.body).toMatchObject({
      instructions: persona.system,
      input: [{ role: 'developer', content: 'Keep it short.' }, { role: 'user', content: [{ type: 'input_text', text: 'How did the launch go?' }] }],
    });
    expect(end).toMatchObject({ response: 'It went well.\n\nCheers, Ada', rules: 'applied', toolCalls: [], finishReason: 'stop', violations: [] });
    if (mode === 'stream') expect(shown).toBe(end.response);
    expect(end.usage.providerCalls).toBe(1);
  });

  it('an answer of tool calls alone: no text, no sign-off, the calls and `tool_calls`, rules skipped, one call', async () => {
    fake.setBehaviour({ mode: 'ok', toolCalls: WEATHER });
    const { shown, end } = await run(chat({ tools: [{ name: 'get_weather' }] }), mode);
    expect(shown).toBe('');
    expect(end).toMatchObject({ response: '', rules: 'skipped', finishReason: 'tool_calls', violations: [] });
    expect(end.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: JSON.parse(args) as unknown }))).toEqual(WEATHER);
    expect(fake.requestCount).toBe(1);
  });

  it('a key the model writes into a call is scrubbed from it, and the arguments stay JSON', async () => {
    fake.setBehaviour({ mode: 'ok', toolCalls: [{ name: 'remember', arguments: { note: `the key is ${KEY}`, n: 1 } }] });
    const { end } = await run(chat({ tools: [{ name: 'remember' }] }), mode);
    expect(JSON.parse(end.toolCalls[0]?.arguments ?? '')).toEqual({ note: 'the key is [redacted]', n: 1 });
  });

  it('text beside tool calls is written in the persona\'s rules, but never repaired (a repair rewrites text alone)', async () => {
    fake.setBehaviour({ mode: 'ok', reply: 'Checking for synergy.', toolCalls: WEATHER });
    const { end } = await run(chat({ tools: [{ name: 'get_weather' }] }), mode, 'anthropic');
    expect(end).toMatchObject({ response: 'Checking for synergy.\n\nCheers, Ada', rules: 'applied', finishReason: 'tool_calls' });
    expect(end.violations.map((violation) => violation.rule)).toEqual(['avoid']);
    expect(end.toolCalls).toHaveLength(1);
    expect(fake.requestCount).toBe(1);
  });

  it('an answer asked for as JSON is not the persona\'s to write: no sign-off, no repair, rules skipped', async () => {
    fake.setBehaviour({ mode: 'ok', reply: '{"summary":"synergy"}' });
    const { end } = await run(chat({ responseFormat: { type: 'json_object' } }), mode, 'google');
    expect(end).toMatchObject({ response: '{"summary":"synergy"}', rules: 'skipped', violations: [], finishReason: 'stop' });
    expect(fake.requestCount).toBe(1);
  });

  it('a generated answer that is one code block keeps its fences (a rewrite\'s would lose them)', async () => {
    const code = '```python\nprint("launched")\n```';
    fake.setBehaviour({ mode: 'ok', reply: code });
    const generated = await run(chat(), mode);
    expect(generated.end.response).toBe(`${code}\n\nCheers, Ada`);
    if (mode === 'stream') expect(generated.shown).toBe(generated.end.response);
    const rewritten = await run(chat(), mode, 'openai', undefined, 'rewrite');
    expect(rewritten.end.response).toBe('print("launched")\n\nCheers, Ada');
  });

  it('an answer the rules skip is not judged either; one they write is', async () => {
    fake.setBehaviour({ mode: 'ok', reply: '{"summary":"done"}' });
    const json = await run(chat({ responseFormat: { type: 'json_object' } }), mode, 'openai', undefined, 'generated', true);
    expect(json.end.judge).toBeUndefined();
    expect(fake.requestCount).toBe(1);
    fake.reset();
    fake.setBehaviour({ mode: 'ok', reply: 'It went well.' });
    const text = await run(chat(), mode, 'openai', undefined, 'generated', true);
    expect(text.end.judge).toMatchObject({ provider: 'openai' });
    expect(fake.requestCount).toBe(2);
  });

  it('what a provider of the chain cannot honour is refused before the first provider is called', async () => {
    const refused = run(chat({ responseFormat: { type: 'json_object' } }), mode, 'openai', 'anthropic');
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ code: 'invalid_request', message: 'provider "anthropic" cannot honour response_format json_object' });
    expect(fake.requestCount).toBe(0);
  });
});

describe('the repair call', () => {
  it('collecting, a required finding gets one repair call: a single turn of the persona\'s instructions and the text to fix', async () => {
    fake.enqueue({ mode: 'ok', reply: 'Great synergy all round.' }, { mode: 'ok', reply: 'Great teamwork all round.' });
    const { end } = await run(chat(), 'collect');
    expect(end).toMatchObject({ response: 'Great teamwork all round.\n\nCheers, Ada', violations: [], finishReason: 'stop', rules: 'applied' });
    expect(fake.requestCount).toBe(2);
    const repair = fake.requests[1]?.body as { instructions: string; input: unknown[] };
    expect(repair.instructions).toBe(persona.system);
    expect(repair.input).toHaveLength(1);
    expect(fake.requests[1]?.userText).toContain('Great synergy all round.');
  });

  it('streaming, the text is already shown: no repair call, the finding is reported', async () => {
    fake.setBehaviour({ mode: 'ok', reply: 'Great synergy all round.' });
    const { shown, end } = await run(chat(), 'stream');
    expect(shown).toBe(end.response);
    expect(end.violations.map((violation) => violation.rule)).toEqual(['avoid']);
    expect(fake.requestCount).toBe(1);
  });
});
