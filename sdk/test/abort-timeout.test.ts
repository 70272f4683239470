import { afterEach, describe, expect, it } from 'vitest';
import { PersonaRefine, PersonaRefineError } from '../src/index.js';
import { type Script, type ScriptedServer, answer, startScriptedServer } from './helpers/scripted-server.js';

describe('abort and timeout', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function clientFor(script: (index: number) => Script, timeoutMs?: number) {
    server = await startScriptedServer((_request, index) => script(index));
    return new PersonaRefine({ apiKey: 'k', baseUrl: server.url, timeoutMs });
  }

  const until = (condition: () => boolean) => expect.poll(condition, { interval: 5 }).toBe(true);

  it('an abort during a request rejects promptly with kind "aborted", keeping the reason as cause', async () => {
    const client = await clientFor(() => ({ hang: true }));
    const controller = new AbortController();
    const call = client.personas.list({ signal: controller.signal });
    await until(() => server!.seen.length === 1);
    const started = Date.now();
    controller.abort(new Error('user navigated away'));
    const error = (await call.catch((e: unknown) => e)) as PersonaRefineError;
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ kind: 'aborted', status: 0 });
    expect((error.cause as Error).message).toBe('user navigated away');
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('an already aborted signal sends nothing', async () => {
    const client = await clientFor(() => answer(200, []));
    await expect(client.personas.create({ name: 'x' }, { signal: AbortSignal.abort() })).rejects.toMatchObject({ kind: 'aborted' });
    expect(server!.seen).toHaveLength(0);
  });

  it('an abort during the wait before a retry stops the retry', async () => {
    const client = await clientFor(() => answer(503, { error: 503, message: 'busy' }, { 'retry-after': '10' }));
    const controller = new AbortController();
    const call = client.personas.list({ signal: controller.signal });
    await until(() => server!.seen.length === 1);
    // sleeps because the client must be in its wait before the retry, which it does not show
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(call).rejects.toMatchObject({ kind: 'aborted' });
    expect(server!.seen).toHaveLength(1);
  });

  it('times out with kind "timeout" when the server never answers', async () => {
    const client = await clientFor(() => ({ hang: true }), 300);
    const started = Date.now();
    const error = await client.personas.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ kind: 'timeout', status: 0, message: 'request timed out after 300 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('the timeout covers all attempts, not each one', async () => {
    const client = await clientFor((i) => (i === 0 ? answer(503, { error: 503, message: 'busy' }) : { hang: true }), 1_000);
    const started = Date.now();
    await expect(client.personas.list()).rejects.toMatchObject({ kind: 'timeout' });
    expect(server!.seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a per-call timeoutMs overrides the client default', async () => {
    const client = await clientFor(() => ({ hang: true }), 60_000);
    await expect(client.personas.get('x', { timeoutMs: 200 })).rejects.toMatchObject({ kind: 'timeout' });
  });
});
