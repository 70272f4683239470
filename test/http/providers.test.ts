import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_PROVIDERS, callerKey, OPERATOR_PROVIDER, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

describe('GET /v1/providers', () => {
  let f: RefineFixture;
  beforeAll(async () => {
    f = await startRefineFixture({ env: { PROVIDER_MODEL_ANTHROPIC: 'claude-sonnet-4-5' } });
  });
  afterAll(() => f.close());

  it('lists every provider this instance can call: built-ins, operator-declared ones, then rules', async () => {
    const res = await f.server.request('/v1/providers');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const providers = await res.json();
    expect(providers.map((provider: { id: string }) => provider.id)).toEqual([...BUILT_IN_PROVIDERS, OPERATOR_PROVIDER, 'rules']);
    expect(providers[0]).toEqual({ id: 'openai', name: 'OpenAI', defaultModel: 'gpt-5.4-mini', requiresKey: true });
    expect(providers).toContainEqual({ id: 'anthropic', name: 'Anthropic', defaultModel: 'claude-sonnet-4-5', requiresKey: true });
    expect(providers).toContainEqual({ id: OPERATOR_PROVIDER, name: OPERATOR_PROVIDER, defaultModel: 'llama3.2', requiresKey: true });
    expect(providers.at(-1)).toEqual({ id: 'rules', name: 'Rules only (no model)', defaultModel: null, requiresKey: false });
  });

  it('names only providers a refine accepts, with a key exactly where it says one is needed', async () => {
    const { id: personaId } = await (await f.server.request('/v1/personas', { method: 'POST', json: { name: 'Any', attributes: {} } })).json();
    const providers: { id: string; requiresKey: boolean }[] = await (await f.server.request('/v1/providers')).json();
    for (const { id, requiresKey } of providers) {
      const key = requiresKey ? { providerApiKey: callerKey(id) } : {};
      const res = await f.server.request('/v1/refine', { method: 'POST', json: { provider: id, personaId, content: 'Hello.', ...key } });
      expect(res.status, id).toBe(200);
      if (requiresKey) {
        const keyless = await f.server.request('/v1/refine', { method: 'POST', json: { provider: id, personaId, content: 'Hello.' } });
        expect(keyless.status, id).toBe(400);
      }
    }
  });

  it('is authenticated like every /v1 route', async () => {
    const res = await f.server.request('/v1/providers', { key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="persona-refine"');
    expect(Object.keys(await res.json())).toEqual(['error', 'message']);
    const wrong = await f.server.request('/v1/providers', { key: 'prk_not_a_real_key_000000000000000000000000' });
    expect(wrong.status).toBe(401);
  });
});
