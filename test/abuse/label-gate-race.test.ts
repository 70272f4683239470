/**
 * A label's policy set while a move of that label is in flight (issue 34, item 5), on both
 * engines: the move either commits before the policy or is judged by it, never let through
 * by a policy it read before the policy committed. On PostgreSQL the race is made
 * deterministic by holding the persona's row lock from a connection of the test's own, so
 * both requests queue behind it in a known order; SQLite serialises its writes, and the
 * same requests there run without a lock held.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageTargets } from '../helpers/storage-targets.js';
import { startTestServer, type TestServer, type TestResponse } from '../helpers/test-server.js';

/** The persona's row locked by a transaction of the test's, and how many server queries wait on it. */
async function holdPersonaRow(databaseUrl: string, personaId: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT id FROM personas WHERE id = $1 FOR UPDATE', [personaId]);
  return {
    waiting: async () =>
      Number(
        (await client.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n,
      ),
    release: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

describe.each(storageTargets)('a label policy racing a label move on $engine', (target) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ target });
  });
  afterAll(() => server?.close());

  const newPersona = async () => {
    const id = (await (await server.request('/v1/personas', { method: 'POST', json: { name: 'Raced' } })).json()).id as string;
    await server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { name: 'Raced v2' } });
    return id;
  };
  /** The persona's label and policy events for `production`, oldest first. */
  const productionEvents = async (id: string) =>
    ((await (await server.request(`/v1/audit?personaId=${id}`)).json()) as { action: string; label: string | null }[])
      .filter((event) => event.label === 'production')
      .map((event) => event.action)
      .reverse();

  it.each([
    { first: 'move', moved: true },
    { first: 'policy', moved: false },
  ])('$first first: the move commits before the policy or is judged by it', async ({ first, moved }) => {
    const id = await newPersona();
    const move = () => server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', json: { version: 2 } });
    const policy = () => server.request(`/v1/personas/${id}/labels/production/policy`, { method: 'PUT', json: { minScore: 90 } });
    const hold = target.engine === 'postgres' ? await holdPersonaRow(server.databaseUrl, id) : undefined;
    const settled = new Set<string>();
    const track = (name: string, response: Promise<TestResponse>) => response.finally(() => settled.add(name));
    // A write that did not queue behind the held lock answers instead.
    const queued = async () => (settled.size > 0 ? `answered: ${[...settled].join()}` : hold!.waiting());
    const [a, b] = first === 'move' ? ['move', 'policy'] : ['policy', 'move'];
    const requests: Record<string, Promise<TestResponse>> = {};
    try {
      requests[a] = track(a, a === 'move' ? move() : policy());
      if (hold) await expect.poll(queued).toBe(1);
      requests[b] = track(b, b === 'move' ? move() : policy());
      if (hold) await expect.poll(queued).toBe(2);
    } finally {
      await hold?.release();
    }
    const [moveResponse, policyResponse] = await Promise.all([requests.move!, requests.policy!]);
    expect(policyResponse.status).toBe(200);
    const events = await productionEvents(id);
    if (moveResponse.status === 200) expect(events).toEqual(['label.set', 'label.policy.set']);
    else {
      expect(await moveResponse.json()).toEqual({ error: 409, message: 'label "production" needs an evaluation of version 2 with score ≥ 90; none exists' });
      expect(events).toEqual(['label.policy.set']);
    }
    // With the lock held, the order the requests queued in is the order they commit in.
    if (hold) expect(moveResponse.status === 200).toBe(moved);
    // And from then on the policy judges every move.
    expect((await server.request(`/v1/personas/${id}/labels/production`, { method: 'PUT', json: { version: 1 } })).status).toBe(409);
  });
});
