import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { recordLoadedModules, type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { secretFragmentsIn } from '../helpers/secrets.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), 'persona-refine-tracing-'));
// Distinctive throughout, so any 6-character fragment of them in an export is a leak.
const SERVICE_KEY = 'prk_Tq4Wz8Nv2Lx6Rb1Hm9Kc3Pd7Jf5Gs0YaEu';
const PROVIDER_KEY = 'sk-FAKE-tracing-test-key-Mv5Qx1Zr8';
const CONTENT = 'Quarterly numbers attached, marker-content-plugh, lots of synergy.';
const ATTRIBUTE = 'marker-attribute-xyzzy';

let fake: FakeProviderServer;
beforeAll(async () => {
  fake = await startFakeProviderServer();
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(server: ServerProcess, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SERVICE_KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId);

describe.each(['http/json', 'http/protobuf'] as const)('tracing over OTLP %s', (protocol) => {
  let receiver: OtlpReceiver;
  let server: ServerProcess;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startServerProcess({
      DATABASE_URL: `sqlite:${join(dir, `${protocol.replace('/', '-')}.sqlite`)}`,
      BOOTSTRAP_API_KEY: SERVICE_KEY,
      PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'persona-refine-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      LOAD_SHED_EVENT_LOOP_DELAY_MS: '0',
    }, 30_000);
  });
  afterAll(async () => {
    await server.stop();
    await receiver.close();
  });

  it('exports one trace per refine: server span continuing the caller\'s traceparent, then persona load, provider attempts, rules and repair', async () => {
    const persona = (await (await call(server, '/v1/personas', { name: 'Traced', attributes: { tone: ATTRIBUTE, avoid: ['synergy'] } })).json()) as { id: string };
    // The first answer breaks the avoid rule, so the model is asked once more to repair it.
    // The first attempt fails with a 500 and is retried.
    fake.enqueue('serverError', { mode: 'ok', reply: 'Numbers attached, with synergy.' }, { mode: 'ok', reply: 'Numbers attached.' });
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await call(
      server,
      '/v1/refine',
      { provider: 'openai', providerApiKey: PROVIDER_KEY, personaId: persona.id, content: CONTENT },
      { traceparent: `00-${traceId}-${callerSpanId}-01` },
    );
    expect(res.status).toBe(200);

    const request = await receiver.waitForSpan('POST /v1/refine');
    expect(request).toMatchObject({ traceId, parentSpanId: callerSpanId, kind: 2, statusCode: 0 });
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/refine',
      'url.path': '/v1/refine',
      'http.response.status_code': 200,
      'persona_refine.request_id': res.headers.get('x-request-id'),
    });
    expect(request.resource).toMatchObject({ 'service.name': 'persona-refine-under-test', 'service.version': packageVersion });

    await receiver.waitForSpan('repair');
    const trace = receiver.spans.filter((span) => span.traceId === traceId);
    const steps = childrenOf(trace, request);
    const model = 'gpt-5.4-mini';
    expect(steps.map((span) => span.name)).toEqual(['persona.load', `chat ${model}`, `chat ${model}`, 'rules', 'repair']);
    const [load, failed, answered, rules, repair] = steps as [ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan];
    expect(load.attributes).toEqual({ 'persona_refine.persona_id': persona.id });
    const genAi = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': model };
    expect(failed).toMatchObject({ kind: 3, statusCode: 2, attributes: { ...genAi, 'error.type': 'provider_failed' } });
    expect(failed.attributes).not.toHaveProperty('gen_ai.usage.input_tokens');
    expect(answered).toMatchObject({ kind: 3, statusCode: 0 });
    expect(answered.attributes).toEqual({ ...genAi, 'gen_ai.usage.input_tokens': expect.any(Number), 'gen_ai.usage.output_tokens': expect.any(Number) });
    expect(answered.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(rules.attributes).toEqual({ 'persona_refine.rules.violations': 1 });
    expect(repair.attributes).toEqual({ 'persona_refine.rules.violations': 1 });
    // The repair's own provider attempt and rules check are its children.
    expect(childrenOf(trace, repair).map((span) => [span.name, span.attributes['error.type']])).toEqual([[`chat ${model}`, undefined], ['rules', undefined]]);
    expect(childrenOf(trace, repair)[1]!.attributes).toEqual({ 'persona_refine.rules.violations': 0 });
  });

  it('traces a chat completion as the refine run it is: persona load, provider attempt, rules and repair under the server span', async () => {
    const persona = (await (await call(server, '/v1/personas', { name: 'Chatted', attributes: { tone: ATTRIBUTE, avoid: ['synergy'] } })).json()) as { id: string };
    fake.enqueue({ mode: 'ok', reply: 'Answered, with synergy.' }, { mode: 'ok', reply: 'Answered.' });
    const traceId = randomBytes(16).toString('hex');
    const res = await call(
      server,
      '/v1/chat/completions',
      { model: 'openai', messages: [{ role: 'user', content: CONTENT }] },
      { 'x-persona': persona.id, 'x-provider-api-key': PROVIDER_KEY, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    );
    expect(res.status).toBe(200);
    const request = await receiver.waitForSpan('POST /v1/chat/completions');
    expect(request.attributes).toMatchObject({ 'http.route': '/v1/chat/completions', 'http.response.status_code': 200 });
    await expect.poll(() => receiver.spans.some((span) => span.traceId === traceId && span.name === 'repair')).toBe(true);
    const trace = receiver.spans.filter((span) => span.traceId === traceId);
    expect(childrenOf(trace, request).map((span) => span.name)).toEqual(['persona.load', 'chat gpt-5.4-mini', 'rules', 'repair']);
  });

  it('traces the answer cache as `cache` spans: a lookup that missed and the store, then a lookup that hit', async () => {
    const persona = (await (await call(server, '/v1/personas', { name: 'Cached', attributes: { tone: ATTRIBUTE } })).json()) as { id: string };
    fake.enqueue({ mode: 'ok', reply: 'Numbers attached.' });
    const body = { provider: 'openai', providerApiKey: PROVIDER_KEY, personaId: persona.id, content: `${CONTENT} cached` };
    const cacheSpans = async (cacheHeader: string) => {
      const traceId = randomBytes(16).toString('hex');
      const res = await call(server, '/v1/refine', body, { 'cache-control': 'max-age=60', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-cache')).toBe(cacheHeader);
      await expect.poll(() => receiver.spans.some((span) => span.traceId === traceId && span.name === 'POST /v1/refine')).toBe(true);
      const trace = receiver.spans.filter((span) => span.traceId === traceId);
      const request = trace.find((span) => span.name === 'POST /v1/refine')!;
      return {
        cache: childrenOf(trace, request).filter((span) => span.name === 'cache').map((span) => ({ kind: span.kind, statusCode: span.statusCode, attributes: span.attributes })),
        providerAttempts: trace.filter((span) => span.name.startsWith('chat ')).length,
      };
    };
    const internal = { kind: 1, statusCode: 0 };
    expect(await cacheSpans('MISS')).toEqual({
      cache: [
        { ...internal, attributes: { 'persona_refine.cache.operation': 'lookup', 'persona_refine.cache.result': 'miss' } },
        { ...internal, attributes: { 'persona_refine.cache.operation': 'store' } },
      ],
      providerAttempts: 1,
    });
    expect(await cacheSpans('HIT')).toEqual({
      cache: [{ ...internal, attributes: { 'persona_refine.cache.operation': 'lookup', 'persona_refine.cache.result': 'hit' } }],
      providerAttempts: 0,
    });
  });

  it("ends a streamed refine's spans with its last event, the provider attempt's with the usage the stream reported", async () => {
    const persona = (await (await call(server, '/v1/personas', { name: 'Streamed' })).json()) as { id: string };
    const traceId = randomBytes(16).toString('hex');
    const res = await call(
      server,
      '/v1/refine',
      { provider: 'openai', providerApiKey: PROVIDER_KEY, personaId: persona.id, content: CONTENT, stream: true },
      { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await res.text();
    expect(events).toContain('event: done');

    await expect.poll(() => receiver.spans.filter((span) => span.traceId === traceId).length).toBeGreaterThanOrEqual(3);
    const trace = receiver.spans.filter((span) => span.traceId === traceId);
    const request = trace.find((span) => span.name === 'POST /v1/refine')!;
    expect(request.attributes['http.response.status_code']).toBe(200);
    const attempt = trace.find((span) => span.name.startsWith('chat '))!;
    expect(attempt).toMatchObject({ parentSpanId: request.spanId, kind: 3, statusCode: 0 });
    expect(attempt.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    // The request's span closes after the provider's stream ended, not when its headers went out.
    expect(request.endTime).toBeGreaterThanOrEqual(attempt.endTime);
  });

  it('names a span by its route template and marks a failed request with error.type', async () => {
    const res = await fetch(`${server.url}/v1/personas/does-not-exist`, { headers: { authorization: `Bearer ${SERVICE_KEY}` } });
    expect(res.status).toBe(404);
    const span = await receiver.waitForSpan('GET /v1/personas/:id');
    expect(span.attributes).toMatchObject({ 'http.route': '/v1/personas/:id', 'url.path': '/v1/personas/does-not-exist', 'http.response.status_code': 404 });
    expect(span.parentSpanId).toBe('');

    const refine = await call(server, '/v1/refine', { provider: 'openai', providerApiKey: PROVIDER_KEY, personaId: 'missing', content: CONTENT });
    expect(refine.status).toBe(404);
    await expect.poll(() => receiver.spans.filter((s) => s.name === 'persona.load' && s.statusCode === 2).length).toBe(1);
    const failed = receiver.spans.find((s) => s.name === 'persona.load' && s.statusCode === 2)!;
    expect(failed.attributes['error.type']).toBe('not_found');
  });

  it("ends the span of a request whose client left after sending its whole body, as 499 client_aborted", async () => {
    const persona = (await (await call(server, '/v1/personas', { name: 'Abandoned' })).json()) as { id: string };
    fake.enqueue('hang');
    const asked = fake.requestCount;
    const traceId = randomBytes(16).toString('hex');
    const controller = new AbortController();
    const pending = fetch(`${server.url}/v1/refine`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SERVICE_KEY}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: JSON.stringify({ provider: 'openai', providerApiKey: PROVIDER_KEY, personaId: persona.id, content: CONTENT }),
      signal: controller.signal,
    }).catch(() => undefined);
    // The body was read and the provider is being asked: Fastify's abort hook no longer fires.
    await expect.poll(() => fake.requestCount).toBeGreaterThan(asked);
    controller.abort();
    await pending;
    await expect.poll(() => receiver.spans.some((span) => span.traceId === traceId && span.name === 'POST /v1/refine'), { timeout: 5_000 }).toBe(true);
    const request = receiver.spans.find((span) => span.traceId === traceId && span.name === 'POST /v1/refine')!;
    expect(request).toMatchObject({ statusCode: 2, attributes: { 'http.response.status_code': 499, 'error.type': 'client_aborted' } });
  });

  it('ends the span of a request whose client left halfway through its body, as 499 client_aborted', async () => {
    const traceId = randomBytes(16).toString('hex');
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /v1/personas HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${SERVICE_KEY}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 1000\r\ntraceparent: 00-${traceId}-${randomBytes(8).toString('hex')}-01\r\n\r\n{"name":"Half`,
    );
    // sleeps because the server must have read the head before the client leaves, and nothing outside shows it has
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    await expect.poll(() => receiver.spans.some((span) => span.traceId === traceId), { timeout: 5_000 }).toBe(true);
    const request = receiver.spans.find((span) => span.traceId === traceId)!;
    expect(request).toMatchObject({ name: 'POST /v1/personas', statusCode: 2, attributes: { 'http.response.status_code': 499, 'error.type': 'client_aborted' } });
  });

  it('never puts a key, the content or a persona\'s attributes into what it exports', async () => {
    await receiver.waitForSpan('repair');
    const exported = Buffer.concat(receiver.bodies).toString('latin1');
    expect(receiver.contentTypes[0]).toBe(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf');
    for (const secret of ['marker-content-plugh', ATTRIBUTE, 'synergy', 'Numbers attached']) expect(exported).not.toContain(secret);
    for (const key of [SERVICE_KEY, PROVIDER_KEY]) expect(secretFragmentsIn(exported, key), key).toEqual([]);
  });
});

describe('with tracing off', () => {
  it('loads no OpenTelemetry module, even through a refine', async () => {
    const loaded = join(dir, 'off-modules.txt');
    const record = recordLoadedModules(loaded);
    const server = await startServerProcess(
      { DATABASE_URL: `sqlite:${join(dir, 'off.sqlite')}`, BOOTSTRAP_API_KEY: SERVICE_KEY, PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'), LOAD_SHED_EVENT_LOOP_DELAY_MS: '0', ...record.env },
      // Recording every import slows start-up; a busy machine needs the margin.
      30_000,
      record.nodeArgs,
    );
    const persona = (await (await call(server, '/v1/personas', { name: 'Untraced' })).json()) as { id: string };
    const res = await call(server, '/v1/refine', { provider: 'openai', providerApiKey: PROVIDER_KEY, personaId: persona.id, content: CONTENT }, { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` });
    expect(res.status).toBe(200);
    await server.stop();
    const modules = readFileSync(loaded, 'utf8');
    expect(modules).toContain('/dist/server.js');
    expect(modules).not.toContain('@opentelemetry');
    expect(modules).not.toContain('open-telemetry');
  });
});
