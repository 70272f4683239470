/**
 * The review queue behind a load balancer (docs/quality.md, "The review queue"): an instance
 * that never read a persona's policy reads it when it writes its batch, and one still holding
 * an older `all` in its cache keeps nothing once another instance set `none`.
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable, redisAvailable } from '../helpers/services.js';
import type { TestServer } from '../helpers/test-server.js';
import { startTwoInstances } from '../helpers/two-instances.js';

describe.skipIf(!postgresAvailable || !redisAvailable)('the review queue across two instances on PostgreSQL', () => {
  it('follows a policy set on the other instance, and keep: none there leaves nothing kept here', async () => {
    const two = await startTwoInstances({ env: { USAGE_FLUSH_MS: '50' } });
    try {
      const { a, b } = two;
      const personaId = (await (await a.request('/v1/personas', { method: 'POST', json: { name: 'Shared', attributes: { tone: 'plain' } } })).json()).id;
      const refine = async (server: TestServer, requestId: string) => {
        const res = await server.request('/v1/refine', { method: 'POST', headers: { 'x-request-id': requestId }, json: { provider: 'rules', personaId, content: 'Plain words.' } });
        expect(res.status).toBe(200);
        await res.text();
      };
      const kept = async () =>
        (await a.storage.db.selectFrom('reviews').select('request_id').where('persona_id', '=', personaId).orderBy('id').execute()).map((row) => row.request_id);

      expect((await a.request(`/v1/personas/${personaId}/retention`, { method: 'PUT', json: { keep: 'all', days: 7 } })).status).toBe(200);
      await refine(b, 'two-review-1');
      // b writes what it holds when read; a lists it.
      await b.request(`/v1/personas/${personaId}/reviews`);
      expect((await (await a.request(`/v1/personas/${personaId}/reviews`)).json()).map((r: { requestId: string }) => r.requestId)).toEqual(['two-review-1']);

      // b's cache still says `all` (read well within 10 s); its next batch is deleted by its own write.
      expect((await a.request(`/v1/personas/${personaId}/retention`, { method: 'PUT', json: { keep: 'none', days: 7 } })).status).toBe(200);
      expect(await kept()).toEqual([]);
      await refine(b, 'two-review-2');
      await b.request(`/v1/personas/${personaId}/reviews`);
      expect(await kept()).toEqual([]);
    } finally {
      await two.close();
    }
  });
});
