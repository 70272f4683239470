/**
 * A persona id that is not an id at all (a paste that lost a character) is a 404 that says
 * so, on every route that takes a persona id: the routes are read from the OpenAPI document,
 * so a route added later fails here until it is walked too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PREFIX } from '../../src/accounts/api-key.js';
import { GOOGLE_KEY_PREFIX } from '../../src/providers/secret-scrubber.js';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** How each route is called with a persona id, the other path parameters and the body well-formed. */
const calls: Record<string, (id: string) => { path: string; json?: unknown }> = {
  'GET /v1/personas/{id}': (id) => ({ path: `/v1/personas/${id}` }),
  'PATCH /v1/personas/{id}': (id) => ({ path: `/v1/personas/${id}`, json: { name: 'x' } }),
  'DELETE /v1/personas/{id}': (id) => ({ path: `/v1/personas/${id}` }),
  'GET /v1/personas/{id}/versions': (id) => ({ path: `/v1/personas/${id}/versions` }),
  'GET /v1/personas/{id}/versions/{version}': (id) => ({ path: `/v1/personas/${id}/versions/1` }),
  'POST /v1/personas/{id}/versions/{version}/restore': (id) => ({ path: `/v1/personas/${id}/versions/1/restore` }),
  'GET /v1/personas/{id}/labels': (id) => ({ path: `/v1/personas/${id}/labels` }),
  'GET /v1/personas/{id}/label-policies': (id) => ({ path: `/v1/personas/${id}/label-policies` }),
  'PUT /v1/personas/{id}/labels/{label}': (id) => ({ path: `/v1/personas/${id}/labels/staging`, json: { version: 1 } }),
  'DELETE /v1/personas/{id}/labels/{label}': (id) => ({ path: `/v1/personas/${id}/labels/staging` }),
  'GET /v1/personas/{id}/labels/{label}/policy': (id) => ({ path: `/v1/personas/${id}/labels/staging/policy` }),
  'PUT /v1/personas/{id}/labels/{label}/policy': (id) => ({ path: `/v1/personas/${id}/labels/staging/policy`, json: { protected: true } }),
  'DELETE /v1/personas/{id}/labels/{label}/policy': (id) => ({ path: `/v1/personas/${id}/labels/staging/policy` }),
  'GET /v1/personas/{id}/samples': (id) => ({ path: `/v1/personas/${id}/samples` }),
  'PUT /v1/personas/{id}/samples': (id) => ({ path: `/v1/personas/${id}/samples`, json: { samples: [{ content: 'Hi.' }] } }),
  'POST /v1/personas/{id}/evals': (id) => ({ path: `/v1/personas/${id}/evals`, json: { provider: 'rules' } }),
  'GET /v1/personas/{id}/evals': (id) => ({ path: `/v1/personas/${id}/evals` }),
  'GET /v1/personas/{id}/evals/compare': (id) => ({ path: `/v1/personas/${id}/evals/compare?base=${EVAL_ID}&head=${EVAL_ID}` }),
  'GET /v1/personas/{id}/evals/{evalId}': (id) => ({ path: `/v1/personas/${id}/evals/${EVAL_ID}` }),
  'POST /v1/personas/{id}/evals/{evalId}/cancel': (id) => ({ path: `/v1/personas/${id}/evals/${EVAL_ID}/cancel` }),
  'GET /v1/personas/{id}/evals/{evalId}/events': (id) => ({ path: `/v1/personas/${id}/evals/${EVAL_ID}/events` }),
  'GET /v1/personas/{id}/quality': (id) => ({ path: `/v1/personas/${id}/quality` }),
  'GET /v1/personas/{id}/variants/{name}': (id) => ({ path: `/v1/personas/${id}/variants/de-DE` }),
  'GET /v1/personas/{id}/feedback': (id) => ({ path: `/v1/personas/${id}/feedback` }),
  'GET /v1/personas/{id}/retention': (id) => ({ path: `/v1/personas/${id}/retention` }),
  'PUT /v1/personas/{id}/retention': (id) => ({ path: `/v1/personas/${id}/retention`, json: { keep: 'all', days: 7 } }),
  'GET /v1/personas/{id}/reviews': (id) => ({ path: `/v1/personas/${id}/reviews` }),
  'POST /v1/personas/{id}/reviews/{requestId}/resolve': (id) => ({ path: `/v1/personas/${id}/reviews/req-1/resolve`, json: {} }),
  'POST /v1/refine': (personaId) => ({ path: '/v1/refine', json: { provider: 'rules', personaId, content: 'hi' } }),
  'POST /v1/check': (personaId) => ({ path: '/v1/check', json: { personaId, content: 'hi' } }),
};
const EVAL_ID = '01a21392-8f31-7000-859d-fda730404f5b';
/** A real persona id that lost its last character on the way. */
const CUT = '01a21392-8f31-7000-859d-fda730404f5';

describe.each(storageTargets)('a persona id that is not an id, on $engine', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target });
  });
  afterAll(() => server?.close());

  const send = async (operation: string, id: string) => {
    const { path, json } = calls[operation]!(id);
    const res = await server.request(path, { method: operation.split(' ')[0], ...(json === undefined ? {} : { json }) });
    return `${operation} ${res.status} ${JSON.stringify(await res.json())}`;
  };

  it('is a 404 "<id>" is not a persona id on every route the OpenAPI document lists with a persona id', async () => {
    const document = await (await server.request('/v1/openapi.json', { key: null })).json();
    const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) =>
          (op.parameters ?? []).some((p: { in: string; name: string }) => p.in === 'path' && p.name === 'id' && path.startsWith('/v1/personas/')) ||
          op.requestBody?.content?.['application/json']?.schema?.properties?.personaId !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(Object.keys(calls).sort());

    const answers = [];
    for (const operation of operations) answers.push(await send(operation, CUT));
    const body = JSON.stringify({ error: 404, message: `"${CUT}" is not a persona id` });
    expect(answers).toEqual(operations.map((operation) => `${operation} 404 ${body}`));
    // A streamed refine answers before streaming anything.
    const streamed = await server.request('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId: CUT, content: 'hi', stream: true } });
    expect([streamed.status, await streamed.json()]).toEqual([404, { error: 404, message: `"${CUT}" is not a persona id` }]);
  });

  it('shows the id as sent, JSON-quoted; a long one shortened, a key never', async () => {
    const message = async (id: string) => {
      const res = await server.request(`/v1/personas/${encodeURIComponent(id)}/labels`);
      expect(res.status).toBe(404);
      return ((await res.json()) as { message: string }).message;
    };
    expect(await message('support')).toBe('"support" is not a persona id');
    expect(await message('01A21392-8F31-7000-859D-FDA730404F5A')).toBe('"01A21392-8F31-7000-859D-FDA730404F5A" is not a persona id');
    expect(await message('say "hi"\\')).toBe('"say \\"hi\\"\\\\" is not a persona id');
    expect(await message('tab\there')).toBe('"tab\\there" is not a persona id');
    // An id pasted twice (72 characters): its first 32 and last 8, with … between.
    const twice = `${CUT}a${CUT}a`;
    expect(await message(twice)).toBe(`"${twice.slice(0, 32)}…${twice.slice(-8)}" is not a persona id`);
    expect(await message('x'.repeat(64))).toBe(`"${'x'.repeat(64)}" is not a persona id`);
    // Counted in characters: an emoji is never cut in half.
    expect(await message('😀'.repeat(70))).toBe(`"${'😀'.repeat(32)}…${'😀'.repeat(8)}" is not a persona id`);
    // A key pasted where the id belongs: only the prefix anyone may see.
    const pasted = [`${API_KEY_PREFIX}FAKE-not-a-key-0000000000`, 'sk-proj-FAKE-not-a-key', 'sk-ant-FAKE-not-a-key', `${GOOGLE_KEY_PREFIX}FAKE-not-a-key`, 'gsk_FAKE-not-a-key', 'xai-FAKE-not-a-key'];
    expect(await Promise.all(pasted.map(message))).toEqual(
      [API_KEY_PREFIX, 'sk-', 'sk-ant-', GOOGLE_KEY_PREFIX, 'gsk_', 'xai-'].map((prefix) => `"${prefix}…" is not a persona id`),
    );
    // The same rule for an id in a body.
    const refined = await server.request('/v1/refine', { method: 'POST', json: { provider: 'rules', personaId: 'sk-FAKE-not-a-key', content: 'hi' } });
    expect(await refined.json()).toEqual({ error: 404, message: '"sk-…" is not a persona id' });
  });

  it('still names a well-formed unknown id as not found', async () => {
    const missing = '01a21392-8f31-7000-859d-fda730404f5a';
    expect(await send('GET /v1/personas/{id}/labels', missing)).toBe(
      `GET /v1/personas/{id}/labels 404 ${JSON.stringify({ error: 404, message: `persona "${missing}" not found` })}`,
    );
  });
});
