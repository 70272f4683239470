/**
 * Every authenticated route, walked twice: with a key that has every scope but
 * the route's (403 naming the scope) and with a key that has only the route's
 * scope (2xx). Keys are created over HTTP by the bootstrap key (`*`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/accounts/scopes.js';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { callerKey, refineEnv } from '../helpers/refine-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

interface RouteCall {
  method: string;
  /** Built fresh for each call: some calls consume what they act on. */
  path: () => Promise<string> | string;
  scope: Scope | 'any';
  json?: () => unknown;
  headers?: Record<string, string>;
  /** The route answers OpenAI's error body (docs/chat-completions.md, "Errors"). */
  openAiErrors?: true;
}

describe('scopes: every route refuses a key without its scope and serves one with it', () => {
  let server: TestServer;
  // The chat completion generates, so a provider answers it (the refine walked here is `rules`).
  let fake: FakeProviderServer;
  const keys = new Map<string, string>();

  const makeKey = async (name: string, scopes: string[]): Promise<string> => {
    const response = await server.request('/v1/keys', { method: 'POST', json: { name, scopes } });
    expect(response.status).toBe(201);
    return (await response.json()).secret as string;
  };
  const persona = async (): Promise<string> => {
    const response = await server.request('/v1/personas', { method: 'POST', json: { name: 'Walked', attributes: { tone: 'plain' } } });
    return (await response.json()).id as string;
  };
  /** A persona with a second version and a `staging` label (unprotected) and a `canary` policy. */
  const prepared = async (): Promise<string> => {
    const id = await persona();
    await server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Walked v2' } });
    await server.request(`/v1/personas/${id}/labels/staging`, { method: 'PUT', json: { version: 1 } });
    await server.request(`/v1/personas/${id}/labels/canary/policy`, { method: 'PUT', json: { protected: false } });
    return id;
  };
  /** A persona with samples and a completed `rules` evaluation of them. */
  const evaluated = async (): Promise<{ id: string; evalId: string }> => {
    const id = await persona();
    await server.request(`/v1/personas/${id}/samples`, { method: 'PUT', json: { samples: [{ content: 'Hello there.' }] } });
    const { id: evalId } = await (await server.request(`/v1/personas/${id}/evals`, { method: 'POST', json: { provider: 'rules' } })).json();
    await expect.poll(async () => (await (await server.request(`/v1/personas/${id}/evals/${evalId}`)).json()).status, { interval: 20 }).toBe('completed');
    return { id, evalId };
  };
  /** A run an instance that stopped answering owns, still running (only a running run can be cancelled). */
  const running = async (): Promise<string> => {
    const { id, evalId } = await evaluated();
    await server.storage.db.updateTable('eval_runs').set({ status: 'running', owner: 'elsewhere', heartbeat_at: new Date().toISOString() }).where('id', '=', evalId).execute();
    return `/v1/personas/${id}/evals/${evalId}/cancel`;
  };
  /** A persona keeping every answer, and the path that resolves one of them. */
  const reviewed = async (): Promise<string> => {
    const id = await persona();
    expect((await server.request(`/v1/personas/${id}/retention`, { method: 'PUT', json: { keep: 'all', days: 1 } })).status).toBe(200);
    const requestId = `scopes-walk-review-${id}`;
    const refined = await server.request('/v1/refine', { method: 'POST', headers: { 'x-request-id': requestId }, json: { provider: 'rules', personaId: id, content: 'Review me.' } });
    expect(refined.status).toBe(200);
    return `/v1/personas/${id}/reviews/${requestId}/resolve`;
  };
  const disposableKey = async () => {
    // Within what a keys:admin-only key may manage (a key cannot hand out more than it has).
    const response = await server.request('/v1/keys', { method: 'POST', json: { name: 'target', scopes: ['keys:admin'] } });
    return (await response.json()).id as string;
  };

  /** An endpoint to manage: deliveries to it fail (nothing listens on the discard port), which is all the walk needs. */
  const hook = async () => {
    const response = await server.request('/v1/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
    return (await response.json()).id as string;
  };

  const routes: RouteCall[] = [
    { method: 'POST', path: () => '/v1/personas', scope: 'personas:write', json: () => ({ name: 'New' }) },
    {
      method: 'POST', path: () => '/v1/personas/draft', scope: 'personas:write',
      json: () => ({ samples: ['Hello there, friend.'], provider: 'openai', providerApiKey: callerKey('openai') }),
    },
    { method: 'GET', path: () => '/v1/personas', scope: 'personas:read' },
    { method: 'GET', path: async () => `/v1/personas/${await persona()}`, scope: 'personas:read' },
    { method: 'PATCH', path: async () => `/v1/personas/${await persona()}`, scope: 'personas:write', json: () => ({ name: 'Renamed' }) },
    { method: 'DELETE', path: async () => `/v1/personas/${await persona()}`, scope: 'personas:write' },
    {
      method: 'GET', scope: 'personas:read',
      path: async () => {
        const response = await server.request('/v1/personas', { method: 'POST', json: { name: 'Varied', attributes: { variants: { short: { maxWords: 5 } } } } });
        return `/v1/personas/${(await response.json()).id as string}/variants/short`;
      },
    },
    { method: 'GET', path: async () => `/v1/personas/${await persona()}/versions`, scope: 'personas:read' },
    { method: 'GET', path: async () => `/v1/personas/${await persona()}/versions/1`, scope: 'personas:read' },
    { method: 'POST', path: async () => `/v1/personas/${await prepared()}/versions/1/restore`, scope: 'personas:write' },
    { method: 'GET', path: async () => `/v1/personas/${await prepared()}/labels`, scope: 'personas:read' },
    { method: 'GET', path: async () => `/v1/personas/${await prepared()}/label-policies`, scope: 'personas:read' },
    { method: 'PUT', path: async () => `/v1/personas/${await prepared()}/labels/staging`, scope: 'labels:write', json: () => ({ version: 2 }) },
    { method: 'DELETE', path: async () => `/v1/personas/${await prepared()}/labels/staging`, scope: 'labels:write' },
    { method: 'GET', path: async () => `/v1/personas/${await prepared()}/labels/production/policy`, scope: 'personas:read' },
    { method: 'PUT', path: async () => `/v1/personas/${await prepared()}/labels/production/policy`, scope: 'labels:protected', json: () => ({ protected: true }) },
    { method: 'DELETE', path: async () => `/v1/personas/${await prepared()}/labels/canary/policy`, scope: 'labels:protected' },
    {
      method: 'POST', path: () => '/v1/refine', scope: 'refine',
      json: () => ({ provider: 'rules', personaId: walkedPersona, content: 'Hello there, this is fine.' }),
    },
    { method: 'POST', path: () => '/v1/check', scope: 'refine', json: () => ({ personaId: walkedPersona, content: 'Hello there.' }) },
    { method: 'GET', path: () => '/v1/providers', scope: 'refine' },
    {
      method: 'POST', path: () => '/v1/chat/completions', scope: 'refine', openAiErrors: true,
      headers: { 'x-provider-api-key': callerKey('openai') },
      json: () => ({ model: 'openai', messages: [{ role: 'user', content: 'Hello' }], persona: walkedPersona }),
    },
    { method: 'GET', path: () => '/v1/models', scope: 'refine', openAiErrors: true },
    { method: 'GET', path: () => '/v1/usage', scope: 'usage:read' },
    { method: 'GET', path: () => '/v1/usage?groupBy=key', scope: 'usage:read' },
    { method: 'GET', path: () => `/v1/personas/${walkedPersona}/quality`, scope: 'usage:read' },
    { method: 'GET', path: () => `/v1/personas/${walkedPersona}/feedback`, scope: 'usage:read' },
    { method: 'POST', path: () => '/v1/feedback', scope: 'refine', json: () => ({ requestId: RATED_REQUEST, rating: 'up' }) },
    { method: 'GET', path: () => `/v1/personas/${walkedPersona}/retention`, scope: 'personas:read' },
    { method: 'PUT', path: async () => `/v1/personas/${await persona()}/retention`, scope: 'personas:write', json: () => ({ keep: 'all', days: 7 }) },
    { method: 'GET', path: () => `/v1/personas/${walkedPersona}/reviews`, scope: 'personas:read' },
    { method: 'POST', path: reviewed, scope: 'personas:write', json: () => ({}) },
    { method: 'GET', path: () => '/v1/audit', scope: 'audit:read' },
    { method: 'GET', path: () => '/v1/keys', scope: 'keys:admin' },
    { method: 'GET', path: async () => `/v1/keys/${await disposableKey()}`, scope: 'keys:admin' },
    { method: 'DELETE', path: async () => `/v1/keys/${await disposableKey()}`, scope: 'keys:admin' },
    { method: 'POST', path: async () => `/v1/keys/${await disposableKey()}/rotate`, scope: 'keys:admin', json: () => ({ graceSeconds: 0 }) },
    { method: 'POST', path: () => '/v1/keys', scope: 'keys:admin', json: () => ({ name: 'made', scopes: ['keys:admin'] }) },
    { method: 'GET', path: () => '/v1/keys/current', scope: 'any' },
    { method: 'POST', path: () => '/v1/webhooks', scope: 'webhooks:admin', json: () => ({ url: 'http://127.0.0.1:9/made', events: ['persona.created'] }) },
    { method: 'GET', path: () => '/v1/webhooks', scope: 'webhooks:admin' },
    { method: 'GET', path: async () => `/v1/webhooks/${await hook()}`, scope: 'webhooks:admin' },
    { method: 'PATCH', path: async () => `/v1/webhooks/${await hook()}`, scope: 'webhooks:admin', json: () => ({ description: 'walked' }) },
    { method: 'DELETE', path: async () => `/v1/webhooks/${await hook()}`, scope: 'webhooks:admin' },
    { method: 'POST', path: async () => `/v1/webhooks/${await hook()}/test`, scope: 'webhooks:admin' },
    { method: 'POST', path: async () => `/v1/webhooks/${await hook()}/rotate-secret`, scope: 'webhooks:admin' },
    { method: 'GET', path: async () => `/v1/webhooks/${await hook()}/deliveries`, scope: 'webhooks:admin' },
    { method: 'GET', path: async () => `/v1/personas/${await persona()}/samples`, scope: 'personas:read' },
    { method: 'PUT', path: async () => `/v1/personas/${await persona()}/samples`, scope: 'personas:write', json: () => ({ samples: [{ content: 'Hi.' }] }) },
    { method: 'POST', path: async () => `/v1/personas/${(await evaluated()).id}/evals`, scope: 'evals', json: () => ({ provider: 'rules' }) },
    { method: 'GET', path: async () => `/v1/personas/${(await evaluated()).id}/evals`, scope: 'evals' },
    {
      method: 'GET', scope: 'evals',
      path: async () => {
        const { id, evalId } = await evaluated();
        return `/v1/personas/${id}/evals/compare?base=${evalId}&head=${evalId}`;
      },
    },
    { method: 'GET', path: async () => { const { id, evalId } = await evaluated(); return `/v1/personas/${id}/evals/${evalId}`; }, scope: 'evals' },
    { method: 'POST', path: running, scope: 'evals' },
    { method: 'GET', path: async () => { const { id, evalId } = await evaluated(); return `/v1/personas/${id}/evals/${evalId}/events`; }, scope: 'evals' },
  ];
  let walkedPersona = '';
  const RATED_REQUEST = 'scopes-walk-rated-refine';

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', ...refineEnv(fake) } });
    walkedPersona = await persona();
    // The answer the feedback route rates, named by the request id it was asked with.
    const rated = await server.request('/v1/refine', {
      method: 'POST', headers: { 'x-request-id': RATED_REQUEST }, json: { provider: 'rules', personaId: walkedPersona, content: 'Hello there.' },
    });
    expect(rated.status).toBe(200);
    for (const scope of SCOPES) {
      keys.set(`only ${scope}`, await makeKey(`only ${scope}`, [scope]));
      keys.set(`all but ${scope}`, await makeKey(`all but ${scope}`, SCOPES.filter((s) => s !== scope)));
    }
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('covers every route the OpenAPI document lists', async () => {
    const document = await (await server.request('/v1/openapi.json')).json();
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const templates = [
      'POST /v1/personas', 'POST /v1/personas/draft', 'GET /v1/personas', 'GET /v1/personas/{id}', 'PATCH /v1/personas/{id}', 'DELETE /v1/personas/{id}',
      'GET /v1/personas/{id}/variants/{name}', 'GET /v1/personas/{id}/versions', 'GET /v1/personas/{id}/versions/{version}', 'POST /v1/personas/{id}/versions/{version}/restore',
      'GET /v1/personas/{id}/labels', 'GET /v1/personas/{id}/label-policies', 'PUT /v1/personas/{id}/labels/{label}', 'DELETE /v1/personas/{id}/labels/{label}',
      'GET /v1/personas/{id}/labels/{label}/policy', 'PUT /v1/personas/{id}/labels/{label}/policy', 'DELETE /v1/personas/{id}/labels/{label}/policy',
      'POST /v1/refine', 'POST /v1/check', 'POST /v1/feedback', 'GET /v1/personas/{id}/quality', 'GET /v1/personas/{id}/feedback', 'GET /v1/personas/{id}/retention', 'PUT /v1/personas/{id}/retention', 'GET /v1/personas/{id}/reviews',
      'POST /v1/personas/{id}/reviews/{requestId}/resolve', 'GET /v1/providers', 'POST /v1/chat/completions', 'GET /v1/models', 'GET /v1/usage', 'GET /v1/audit',
      'GET /v1/keys', 'GET /v1/keys/{id}', 'DELETE /v1/keys/{id}', 'POST /v1/keys/{id}/rotate', 'POST /v1/keys', 'GET /v1/keys/current',
      'GET /v1/personas/{id}/samples', 'PUT /v1/personas/{id}/samples', 'POST /v1/personas/{id}/evals', 'GET /v1/personas/{id}/evals',
      'GET /v1/personas/{id}/evals/compare', 'GET /v1/personas/{id}/evals/{evalId}', 'POST /v1/personas/{id}/evals/{evalId}/cancel',
      'GET /v1/personas/{id}/evals/{evalId}/events',
      'POST /v1/webhooks', 'GET /v1/webhooks', 'GET /v1/webhooks/{id}', 'PATCH /v1/webhooks/{id}', 'DELETE /v1/webhooks/{id}',
      'POST /v1/webhooks/{id}/test', 'POST /v1/webhooks/{id}/rotate-secret', 'GET /v1/webhooks/{id}/deliveries',
    ].sort();
    expect(documented).toEqual(templates);
    // Each template is walked once, in the order of `routes` (usage is walked twice: with and without groupBy).
    expect(routes.length).toBe(templates.length + 1);
  });

  for (const route of routes) {
    it(`${route.method} ${route.scope === 'any' ? 'keys/current' : route.scope}: 403 without the scope, 2xx with it`, async () => {
      const call = async (key: string) =>
        server.request(await route.path(), { method: route.method, key, json: route.json?.(), headers: route.headers });
      if (route.scope === 'any') {
        for (const scope of SCOPES) expect((await call(keys.get(`only ${scope}`)!)).status).toBe(200);
        return;
      }
      const refused = await call(keys.get(`all but ${route.scope}`)!);
      expect(refused.status).toBe(403);
      const message = `this key lacks the scope "${route.scope}"`;
      expect(await refused.json()).toEqual(route.openAiErrors ? { error: { message, type: 'permission_error', param: null, code: 'forbidden' } } : { error: 403, message });
      const served = await call(keys.get(`only ${route.scope}`)!);
      expect(served.status, await served.clone().text()).toBeGreaterThanOrEqual(200);
      expect(served.status).toBeLessThan(300);
    });
  }

  it('a key cannot grant, or rotate a key with, a scope it lacks', async () => {
    const admin = keys.get('only keys:admin')!;
    const granting = await server.request('/v1/keys', { method: 'POST', key: admin, json: { name: 'more', scopes: ['keys:admin', 'refine'] } });
    expect(granting.status).toBe(403);
    expect(await granting.json()).toEqual({ error: 403, message: 'this key lacks the scope "refine"' });
    const star = await server.request('/v1/keys', { method: 'POST', key: admin, json: { name: 'star', scopes: ['*'] } });
    expect(await star.json()).toEqual({ error: 403, message: 'this key lacks the scope "*"' });
    const wider = await (await server.request('/v1/keys', { method: 'POST', json: { name: 'wider', scopes: ['refine'] } })).json();
    const rotating = await server.request(`/v1/keys/${wider.id}/rotate`, { method: 'POST', key: admin, json: {} });
    expect(await rotating.json()).toEqual({ error: 403, message: 'this key lacks the scope "refine"' });
  });

  it('another account\'s persona stays a 404 whatever the scopes', async () => {
    const otherKey = await server.createAccount('other-team');
    const id = await persona();
    for (const [method, path, json] of [
      ['GET', `/v1/personas/${id}`, undefined],
      ['PUT', `/v1/personas/${id}/labels/production`, { version: 1 }],
      ['PUT', `/v1/personas/${id}/labels/production/policy`, { protected: false }],
      ['GET', `/v1/personas/${id}/labels/production/policy`, undefined],
    ] as const) {
      expect((await server.request(path, { method, key: otherKey, json })).status, `${method} ${path}`).toBe(404);
    }
  });
});
