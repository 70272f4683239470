/**
 * Issue 29, findings 4, 5, 6, 10 and 11: the SDK against servers that lie, redirect, never stop
 * talking, or answer 2xx with the wrong shape; and against keys with a pasted newline.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { AnswerTooLargeError, PersonaRefine, PersonaRefineError } from '../src/index.js';
import { EventStreamParser } from '../src/event-stream-parser.js';
import { type ScriptedServer, answer, startScriptedServer } from './helpers/scripted-server.js';

const servers: { close(): unknown }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function scripted(...args: Parameters<typeof startScriptedServer>): Promise<ScriptedServer> {
  const server = await startScriptedServer(...args);
  servers.push(server);
  return server;
}

/** A server whose handler writes the answer by hand (endless bodies, streams). */
async function handWritten(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => { server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)); } });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const KEY = 'prk_test_HostileAnswers0123456789';
const PROVIDER_KEY = 'sk-test-ProviderKeyNeverLeaves42';
const REFINE = { personaId: 'p1', provider: 'openai', content: 'hello', providerApiKey: PROVIDER_KEY };

describe('finding 4: keys with a control character are refused before any request, without echoing them', () => {
  const pasted = `${KEY}\n`;

  it('an apiKey with a newline: TypeError at construction; message, stack and inspect never hold the key', () => {
    let error: unknown;
    try {
      new PersonaRefine({ apiKey: pasted, baseUrl: 'http://127.0.0.1:9' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/apiKey contains a control character/);
    for (const shown of [(error as Error).message, (error as Error).stack ?? '', inspect(error, { depth: 5 })]) expect(shown).not.toContain('HostileAnswers');
  });

  it('a providerApiKey (or a fallback key) with a control character: refused, and no request is made', async () => {
    const server = await scripted(() => answer(200, { response: 'x' }));
    const client = new PersonaRefine({ apiKey: KEY, baseUrl: server.url });
    for (const input of [
      { ...REFINE, providerApiKey: `${PROVIDER_KEY}\r\n` },
      { ...REFINE, fallbacks: [{ provider: 'anthropic', providerApiKey: `\u001b${PROVIDER_KEY}` }] },
    ]) {
      const error = await client.refine(input).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TypeError);
      expect(inspect(error)).not.toContain('ProviderKeyNeverLeaves');
      expect(() => client.refineStream(input)).toThrow(/control character/);
    }
    expect(server.seen).toHaveLength(0);
  });
});

describe('finding 5: redirects are refused, never followed with the body and keys', () => {
  it.each([307, 308, 302, 301])('a %i to another origin is an error naming the location; the other origin receives nothing', async (status) => {
    const elsewhere = await scripted(() => answer(200, { response: 'from elsewhere' }));
    const server = await scripted(() => answer(status, '', { location: `${elsewhere.url}/v1/refine` }));
    const client = new PersonaRefine({ apiKey: KEY, baseUrl: server.url });
    const error = await client.refine(REFINE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ kind: 'http', status });
    expect((error as Error).message).toContain(`${elsewhere.url}/v1/refine`);
    expect(elsewhere.seen).toHaveLength(0);
    expect(server.seen).toHaveLength(1);
  });
});

describe('finding 6: bounded reading', () => {
  it('a never-ending JSON body stops at maxAnswerBytes with AnswerTooLargeError', async () => {
    const url = await handWritten((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      res.write('[');
      pump();
    });
    const client = new PersonaRefine({ apiKey: KEY, baseUrl: url, maxAnswerBytes: 2 * 1024 * 1024, maxRetries: 0, timeoutMs: 10_000 });
    const error = await client.personas.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect(error).toMatchObject({ kind: 'http', status: 200, limitBytes: 2 * 1024 * 1024 });
  });

  it('a Content-Length past the cap is refused before reading', async () => {
    const url = await handWritten((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('{');
    });
    const client = new PersonaRefine({ apiKey: KEY, baseUrl: url, maxAnswerBytes: 1024 * 1024, maxRetries: 0 });
    await expect(client.personas.get('x')).rejects.toBeInstanceOf(AnswerTooLargeError);
  });

  it('an unterminated 32 MiB SSE line: AnswerTooLargeError past 16 MiB, in linear time', async () => {
    const url = await handWritten((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: delta\ndata: ');
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 32 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const client = new PersonaRefine({ apiKey: KEY, baseUrl: url, maxRetries: 0 });
    const started = Date.now();
    const error = await (async () => {
      for await (const _ of client.refineStream(REFINE)) void _;
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a stream event larger than the client's maxAnswerBytes: AnswerTooLargeError at that limit", async () => {
    const url = await handWritten((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: delta\ndata: {"text":"${'x'.repeat(64 * 1024)}"}\n\nevent: done\ndata: {"response":"x"}\n\n`);
    });
    const client = new PersonaRefine({ apiKey: KEY, baseUrl: url, maxAnswerBytes: 16 * 1024, maxRetries: 0 });
    const error = await (async () => {
      for await (const _ of client.refineStream(REFINE)) void _;
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect(error).toMatchObject({ limitBytes: 16 * 1024 });
  });

  it('the parser is linear: a 12 MiB line in 4 KiB pieces is parsed in well under a second', () => {
    const parser = new EventStreamParser();
    const piece = new TextEncoder().encode('y'.repeat(4096));
    const started = Date.now();
    parser.push(new TextEncoder().encode('data: '));
    for (let i = 0; i < 3 * 1024; i++) parser.push(piece);
    const [event] = parser.push(new TextEncoder().encode('\n\n'));
    expect(event!.data.length).toBe(12 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('endless unknown events before the first delta are not kept in memory', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let release!: () => void;
    const noiseSent = new Promise<void>((resolve) => (release = resolve));
    let finish!: () => void;
    const url = await handWritten((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const noise = 'event: noise\ndata: n\n\n'.repeat(4096);
      let sent = 0;
      const pump = () => {
        while (sent < 48 * 1024 * 1024) {
          sent += noise.length;
          if (!res.write(noise)) return void res.once('drain', pump);
        }
        release();
      };
      finish = () => res.end('event: delta\ndata: {"text":"ok"}\n\nevent: done\ndata: {"response":"ok","violations":{},"usage":{}}\n\n');
      pump();
    });
    gc();
    const before = process.memoryUsage().heapUsed;
    const stream = new PersonaRefine({ apiKey: KEY, baseUrl: url, maxRetries: 0 }).refineStream(REFINE);
    const iterator = stream[Symbol.asyncIterator]();
    const first = iterator.next();
    await noiseSent;
    // sleeps because the client must have read the noise sent, and nothing it exposes counts what it read
    await new Promise((resolve) => setTimeout(resolve, 300));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    finish();
    expect((await first).value).toBe('ok');
    await iterator.return(undefined as never);
    // ~2.2 million noise events went by; keeping them would take hundreds of MiB.
    expect(grown).toBeLessThan(40 * 1024 * 1024);
  }, 30_000);
});

describe('finding 10 and 11, against the real server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('audit.list pages with personaId and cursor on a runtime without URLSearchParams.size (Node < 18.16)', async () => {
    const client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    const persona = await client.personas.create({ name: 'Audited' });
    await client.personas.update(persona.id, { name: 'Audited twice' });
    await client.personas.create({ name: 'Someone else' });
    const size = Object.getOwnPropertyDescriptor(URLSearchParams.prototype, 'size')!;
    delete (URLSearchParams.prototype as { size?: number }).size;
    try {
      const first = await client.audit.list({ personaId: persona.id, limit: 1 });
      expect(first.events).toHaveLength(1);
      expect(first.nextCursor).toBeDefined();
      const second = await client.audit.list({ personaId: persona.id, limit: 1, cursor: first.nextCursor });
      expect(second.events).toHaveLength(1);
      expect(second.events[0]).not.toEqual(first.events[0]);
      expect([...first.events, ...second.events].every((event) => event.personaId === persona.id)).toBe(true);
    } finally {
      Object.defineProperty(URLSearchParams.prototype, 'size', size);
    }
  });

  it.each(['', 'null', '"a string"', '42', '[]'])('a 2xx answer %j where an object is due is a PersonaRefineError, never a TypeError', async (body) => {
    const proxy = await scripted(() => ({ answer: { status: 200, body, headers: { etag: '"1"' } } }));
    const client = new PersonaRefine({ apiKey: server.key, baseUrl: proxy.url, maxRetries: 0 });
    for (const call of [() => client.personas.get('p'), () => client.personas.create({ name: 'n' }), () => client.refine(REFINE), () => client.personas.update('p', { name: 'n' })]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PersonaRefineError);
      expect(error).toMatchObject({ kind: 'http', status: 200 });
    }
  });

  it.each(['', 'null', '{"personas":[]}', '7'])('a 2xx answer %j where a list is due is a PersonaRefineError', async (body) => {
    const proxy = await scripted(() => ({ answer: { status: 200, body } }));
    const client = new PersonaRefine({ apiKey: server.key, baseUrl: proxy.url, maxRetries: 0 });
    await expect(client.personas.list()).rejects.toBeInstanceOf(PersonaRefineError);
    await expect(client.providers()).rejects.toBeInstanceOf(PersonaRefineError);
  });

  it('a refine answer without its text, or a stream event that is null, is a PersonaRefineError', async () => {
    const proxy = await scripted((_request, index) =>
      index === 0
        ? { answer: { status: 200, body: { response: null } } }
        : { answer: { status: 200, body: 'event: delta\ndata: null\n\n', headers: { 'content-type': 'text/event-stream' } } },
    );
    const client = new PersonaRefine({ apiKey: server.key, baseUrl: proxy.url, maxRetries: 0 });
    await expect(client.refine(REFINE)).rejects.toBeInstanceOf(PersonaRefineError);
    const streamed = (async () => {
      for await (const _ of client.refineStream(REFINE)) void _;
    })();
    await expect(streamed).rejects.toBeInstanceOf(PersonaRefineError);
  });
});

describe('a done event that replaces what was streamed (a service bug the server flags)', () => {
  it("resolves with the whole result, marked replaced, though the pieces said otherwise", async () => {
    const url = await handWritten((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-persona-version': '3' });
      res.end(
        'event: delta\ndata: {"text":"Here is"}\n\n' +
          'event: done\ndata: {"response":"Ahoy! Yer order be on its way.","violations":{},"usage":{"providerCalls":1},"replaced":true}\n\n',
      );
    });
    const stream = new PersonaRefine({ apiKey: KEY, baseUrl: url }).refineStream(REFINE);
    const pieces: string[] = [];
    for await (const piece of stream) pieces.push(piece);
    const result = await stream.result;
    expect(pieces).toEqual(['Here is']);
    expect(result.response).toBe('Ahoy! Yer order be on its way.');
    expect(result.replaced).toBe(true);
  });
});
