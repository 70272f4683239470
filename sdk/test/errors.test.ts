import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine, PersonaRefineError } from '../src/index.js';
import { answer, startScriptedServer } from './helpers/scripted-server.js';

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (error: unknown) => error as PersonaRefineError);

describe('service errors surface as PersonaRefineError', () => {
  let server: TestServer;
  let client: PersonaRefine;
  beforeAll(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(() => server.close());

  it('401 for an unknown key, with the message and request id from the service', async () => {
    const stranger = new PersonaRefine({ apiKey: 'prk_not_a_real_key_0000000000000000000000', baseUrl: server.url });
    const error = await failure(stranger.personas.list());
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ kind: 'http', status: 401, source: 'service', retryAfter: undefined });
    expect(error.requestId).toMatch(/.+/);
    expect(error.message.length).toBeGreaterThan(0);
  });

  it('404 for an unknown persona', async () => {
    const error = await failure(client.personas.get('0190aaaa-0000-7000-8000-000000000000'));
    expect(error).toMatchObject({ kind: 'http', status: 404, source: 'service' });
  });

  it('400 naming what is wrong', async () => {
    const error = await failure(client.personas.create({ name: '' }));
    expect(error).toMatchObject({ kind: 'http', status: 400, source: 'service' });
    expect(error.message).toMatch(/name/);
  });

  it('400 for an unknown field sent despite the types', async () => {
    const error = await failure(client.personas.create({ name: 'x', colour: 'red' } as never));
    expect(error).toMatchObject({ status: 400 });
    expect(error.message).toMatch(/colour/);
  });
});

describe('failures without a service answer', () => {
  it('a refused connection is kind "network", status 0, after the allowed retries', async () => {
    const retries: number[] = [];
    const client = new PersonaRefine({
      apiKey: 'k',
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      maxRetries: 1,
      onRetry: (event) => retries.push(event.retry),
    });
    const error = await failure(client.personas.list());
    expect(error).toMatchObject({ kind: 'network', status: 0, source: 'service', requestId: undefined });
    expect(error.message).toMatch(/could not reach persona-refine/);
    expect(retries).toEqual([1]);
  });

  it('a non-JSON error page keeps the status and says so', async () => {
    const proxy = await startScriptedServer(() => answer(500, '<html>oops</html>', { 'content-type': 'text/html' }));
    try {
      const error = await failure(new PersonaRefine({ apiKey: 'k', baseUrl: proxy.url }).personas.list());
      expect(error).toMatchObject({ kind: 'http', status: 500, message: 'HTTP 500 Internal Server Error' });
    } finally {
      await proxy.close();
    }
  });

  it('a 2xx that is not JSON is an error, not a crash', async () => {
    const proxy = await startScriptedServer(() => answer(200, 'not json', { 'x-request-id': 'req-1' }));
    try {
      const error = await failure(new PersonaRefine({ apiKey: 'k', baseUrl: proxy.url }).personas.list());
      expect(error).toMatchObject({ kind: 'http', status: 200, requestId: 'req-1' });
      expect(error.message).toMatch(/not valid JSON/);
    } finally {
      await proxy.close();
    }
  });
});
