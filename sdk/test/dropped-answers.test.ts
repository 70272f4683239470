/**
 * Issue 29, finding 2: a write whose answer is lost (the proxy forwards it to the real server,
 * which applies it, then cuts the connection) is retried by the SDK with the same
 * Idempotency-Key, and the server answers the retry with the first answer: each write is applied
 * exactly once and the caller sees it succeed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine } from '../src/index.js';
import { type Script, type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

const FORWARD: Script = { forward: true };
const LOST_ANSWER: Script = { forward: true, thenDrop: true };

describe('writes through a proxy that drops the first answer after the server applied it', () => {
  let server: TestServer;
  let direct: PersonaRefine;
  let proxy: ScriptedServer | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    direct = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(() => server.close());
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  /** A client whose first request of the given method loses its answer; everything else passes. */
  async function clientDroppingFirst(method: string): Promise<PersonaRefine> {
    let dropped = false;
    proxy = await startScriptedServer((request) => {
      if (dropped || request.method !== method) return FORWARD;
      dropped = true;
      return LOST_ANSWER;
    }, server.url);
    return new PersonaRefine({ apiKey: server.key, baseUrl: proxy.url });
  }

  function expectOneRetryWithTheSameKey(method: string): void {
    const attempts = proxy!.seen.filter((request) => request.method === method);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.headers['idempotency-key']).toBeTruthy();
    expect(attempts[1]!.headers['idempotency-key']).toBe(attempts[0]!.headers['idempotency-key']);
  }

  it('update with ifMatch: applied exactly once (one new version), and resolves with it instead of a 412', async () => {
    const persona = await direct.personas.create({ name: 'Dropped update', attributes: { tone: 'warm' } });
    const client = await clientDroppingFirst('PATCH');
    const updated = await client.personas.update(persona.id, { attributes: { tone: 'dry' } }, { ifMatch: persona.etag });
    expect(updated.etag).toBe('"2"');
    expectOneRetryWithTheSameKey('PATCH');
    expect((await direct.personas.versions.list(persona.id)).map((v) => v.version)).toEqual([1, 2]);
  });

  it('update without ifMatch: applied exactly once (not two versions)', async () => {
    const persona = await direct.personas.create({ name: 'Dropped blind update' });
    const client = await clientDroppingFirst('PATCH');
    await client.personas.update(persona.id, { name: 'Renamed once' });
    expectOneRetryWithTheSameKey('PATCH');
    expect((await direct.personas.versions.list(persona.id)).map((v) => v.version)).toEqual([1, 2]);
  });

  it('delete: applied exactly once, and resolves instead of throwing 404', async () => {
    const persona = await direct.personas.create({ name: 'Dropped delete' });
    const client = await clientDroppingFirst('DELETE');
    await expect(client.personas.delete(persona.id, { ifMatch: persona.etag })).resolves.toBeUndefined();
    expectOneRetryWithTheSameKey('DELETE');
    await expect(direct.personas.get(persona.id)).rejects.toMatchObject({ status: 404 });
    const deletions = (await direct.audit.list({ personaId: persona.id })).events.filter((event) => event.action.includes('delete'));
    expect(deletions).toHaveLength(1);
  });

  it('versions.restore: applied exactly once (one new version)', async () => {
    const persona = await direct.personas.create({ name: 'Dropped restore', attributes: { tone: 'warm' } });
    await direct.personas.update(persona.id, { attributes: { tone: 'dry' } });
    const client = await clientDroppingFirst('POST');
    const restored = await client.personas.versions.restore(persona.id, 1, { ifMatch: '"2"' });
    expect(restored.etag).toBe('"3"');
    expect(restored.attributes).toEqual({ tone: 'warm' });
    expectOneRetryWithTheSameKey('POST');
    expect((await direct.personas.versions.list(persona.id)).map((v) => v.version)).toEqual([1, 2, 3]);
  });

  it('labels.delete: applied once, and resolves instead of throwing 404', async () => {
    const persona = await direct.personas.create({ name: 'Dropped label removal' });
    await direct.personas.labels.set(persona.id, 'production', 1);
    const client = await clientDroppingFirst('DELETE');
    await expect(client.personas.labels.delete(persona.id, 'production')).resolves.toBeUndefined();
    expectOneRetryWithTheSameKey('DELETE');
    expect(await direct.personas.labels.get(persona.id)).toEqual({});
  });
});
