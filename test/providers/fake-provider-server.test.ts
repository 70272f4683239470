/** The fake itself: it must behave like the providers, or every other test proves little. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';

let fake: FakeProviderServer;
beforeAll(async () => {
  fake = await startFakeProviderServer();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const post = (path: string, headers: Record<string, string>, body: unknown) =>
  fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('fake provider server', () => {
  it('answers a request without a key the way the provider does', async () => {
    const response = await post('/anthropic/v1/messages', { 'anthropic-version': '2023-06-01' }, { model: 'm', messages: [] });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('requires anthropic-version like Anthropic', async () => {
    const response = await post('/anthropic/v1/messages', { 'x-api-key': 'k' }, { model: 'm', messages: [] });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('anthropic-version') } });
  });

  it('answers an unknown path with 404', async () => {
    const response = await post('/openai/v1/embeddings', { authorization: 'Bearer k' }, {});
    expect(response.status).toBe(404);
  });

  it('records method, paths, headers and the parsed body', async () => {
    await post('/groq/openai/v1/chat/completions', { authorization: 'Bearer k' }, { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(fake.requests[0]).toMatchObject({
      provider: 'groq', api: 'openai-chat', method: 'POST', path: '/groq/openai/v1/chat/completions',
      apiPath: '/openai/v1/chat/completions', model: 'm', userText: 'hi', clientClosed: false,
      headers: { authorization: 'Bearer k' }, body: { model: 'm' },
    });
  });

  it('applies queued behaviours in order, then the default', async () => {
    fake.enqueue('serverError', { mode: 'ok', reply: 'second' });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const response = await post('/openai/v1/chat/completions', { authorization: 'Bearer k' }, { model: 'm', messages: [] });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([500, 200, 200]);
  });

  it('holds 2,000 concurrent connections that each wait 300 ms', async () => {
    const busy = await startFakeProviderServer({ latencyMs: 300, record: false });
    try {
      const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      const statuses = await Promise.all(
        Array.from({ length: 2_000 }, () =>
          fetch(`${busy.baseUrl('groq')}/chat/completions`, {
            method: 'POST',
            headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
            body,
          }).then(async (response) => {
            await response.arrayBuffer();
            return response.status;
          }),
        ),
      );
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect(busy.requestCount).toBe(2_000);
    } finally {
      await busy.close();
    }
    // 2,000 connections opened at once take seconds on a loaded 2-core machine.
  }, 120_000);
});
