/**
 * The rest of the chat completion contract, through real HTTP: an answer asked for as JSON is
 * the model's JSON (rules skipped, no repair), a failure after the first streamed byte reaches
 * the OpenAI client as its APIError, the input limits are 400s naming the member, and a
 * completion's provider calls and tokens are in the metrics like a refine's.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_MESSAGES } from '../../src/schemas/chat.js';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

describe('POST /v1/chat/completions, the rest of the contract', () => {
  let f: RefineFixture;
  let openai: OpenAI;

  beforeAll(async () => {
    f = await startRefineFixture();
    const personaId = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Strict', attributes: { avoid: ['synergy'], signOff: '— Team Strict' } } })).json()).id;
    openai = new OpenAI({ apiKey: f.server.key, baseURL: `${f.server.url}/v1`, maxRetries: 0, defaultHeaders: { 'X-Persona': personaId, 'X-Provider-Api-Key': callerKey('openai') } });
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it.each(['json_object', 'json_schema'] as const)('answers the model\'s JSON as written for response_format %s: rules skipped, no repair, no sign-off', async (type) => {
    const json = '{"pitch":"synergy"}';
    // The fake answers a schema'd request with `structured` (a string: verbatim), as it answers the judge.
    f.fake.setBehaviour({ mode: 'ok', reply: json, structured: json });
    const response_format = type === 'json_object' ? { type } : { type, json_schema: { name: 'pitch', schema: { type: 'object', properties: { pitch: { type: 'string' } } } } };
    const { data, response } = await openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Pitch as JSON' }], response_format }).withResponse();
    expect(data.choices[0]!.message.content).toBe(json);
    expect(response.headers.get('x-persona-rules')).toBe('skipped');
    expect(f.fake.requests).toHaveLength(1);
  });

  it('applies the rules to prose: the sign-off is added without a call of its own', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'All good here.' });
    const { data, response } = await openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Status?' }] }).withResponse();
    expect(data.choices[0]!.message.content).toMatch(/^All good here\.\s+— Team Strict$/);
    expect(response.headers.get('x-persona-rules')).toBe('applied');
    expect(f.fake.requests).toHaveLength(1);
  });

  it('keeps an answer that is one code block as written, fences included (a refine would unwrap its rewrite)', async () => {
    const code = '```ts\nconst total = 42;\n```';
    f.fake.setBehaviour({ mode: 'ok', reply: code });
    const data = await openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Code please' }] });
    expect(data.choices[0]!.message.content!.startsWith(code)).toBe(true);
  });

  it('a provider failing after the first streamed text ends the stream with OpenAI\'s error, which the client raises', async () => {
    f.fake.setBehaviour({ mode: 'streamError', reply: 'Partial answer that will not finish', failAfterPieces: 3 });
    const stream = await openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Go' }], stream: true });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/^provider "openai"/);
    expect(seen[0]).toBe('');
  });

  it.each([
    ['too many messages', { messages: Array.from({ length: MAX_MESSAGES + 1 }, () => ({ role: 'user', content: 'x' })) }, /messages/],
    ['a tool name OpenAI would refuse', { messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'no spaces allowed' } }] }, /tools/],
    ['a role it does not know', { messages: [{ role: 'narrator', content: 'x' }] }, /messages/],
  ])('refuses %s with a 400 naming the member, before any provider call', async (_what, body, member) => {
    const error = await openai.chat.completions.create({ model: 'openai', ...body } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toMatch(member);
    expect(f.fake.requests).toHaveLength(0);
  });

  it('pins the persona by label (<id>@<label>) or version (<id>:<version>); the newest without either', async () => {
    const id = (await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Pinned v1', attributes: { tone: 'calm' } } })).json()).id as string;
    await f.server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Pinned v2' } });
    expect((await f.server.request(`/v1/personas/${id}/labels/staging`, { method: 'PUT', json: { version: 1 } })).status).toBe(200);
    f.fake.setBehaviour({ mode: 'ok', reply: 'Pinned.' });
    const versionFor = async (persona: string) => {
      f.fake.reset();
      const { response } = await openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'X-Persona': persona } }).withResponse();
      return [response.headers.get('x-persona-version'), JSON.stringify(f.fake.requests[0]!.body).includes('Pinned v1') ? 'v1' : 'v2'];
    };
    expect(await versionFor(`${id}@staging`)).toEqual(['1', 'v1']);
    expect(await versionFor(`${id}:1`)).toEqual(['1', 'v1']);
    expect(await versionFor(id)).toEqual(['2', 'v2']);
    const error = await openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'X-Persona': `${id}:9` } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('what the named provider cannot do is a BadRequestError saying so, before any call', async () => {
    const error = await openai.chat.completions
      .create({ model: 'anthropic', messages: [{ role: 'user', content: 'Hi' }], seed: 7 }, { headers: { 'X-Provider-Api-Key': callerKey('anthropic') } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toBe('400 provider "anthropic" cannot honour seed');
    expect(f.fake.requests).toHaveLength(0);
  });

  it('stops paying the provider when the client goes away', async () => {
    f.fake.setBehaviour('hang');
    const leaving = new AbortController();
    const pending = openai.chat.completions.create({ model: 'openai', messages: [{ role: 'user', content: 'Take your time' }] }, { signal: leaving.signal }).catch((e: unknown) => e);
    const [request] = await f.fake.waitForRequests(1);
    leaving.abort();
    await f.fake.waitForClientClose(request!);
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  it('counts a completion\'s provider calls and tokens in the metrics', async () => {
    const calls = async () => {
      const text = await (await f.server.request('/metrics', { key: null })).text();
      return Number(/^provider_calls_total\{provider="groq",outcome="ok"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await calls();
    f.fake.setBehaviour({ mode: 'ok', reply: 'Counted.' });
    await openai.chat.completions.create({ model: 'groq', messages: [{ role: 'user', content: 'Count me' }] }, { headers: { 'X-Provider-Api-Key': callerKey('groq') } });
    expect(await calls()).toBe(before + 1);
  });
});
