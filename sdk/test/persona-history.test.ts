import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine, PersonaRefineError, PreconditionFailedError } from '../src/index.js';
import { runCli } from './helpers/cli.js';

describe('client.personas.versions / labels, client.audit and pinning against a real server', () => {
  let server: TestServer;
  let client: PersonaRefine;
  beforeAll(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(() => server.close());

  it('lists and gets versions, restores one with If-Match, and returns the new ETag', async () => {
    const created = await client.personas.create({ name: 'Versioned', attributes: { tone: 'warm' } });
    const edited = await client.personas.update(created.id, { attributes: { tone: 'rude' } });
    const versions = await client.personas.versions.list(created.id);
    expect(versions.map((v) => [v.version, v.attributes])).toEqual([
      [1, { tone: 'warm' }],
      [2, { tone: 'rude' }],
    ]);
    expect(await client.personas.versions.get(created.id, 1)).toEqual(versions[0]);
    await expect(client.personas.versions.restore(created.id, 1, { ifMatch: '"1"' })).rejects.toBeInstanceOf(PreconditionFailedError);
    const restored = await client.personas.versions.restore(created.id, 1, { ifMatch: edited.etag });
    expect(restored).toEqual({ id: created.id, name: 'Versioned', attributes: { tone: 'warm' } });
    expect(restored.etag).toBe('"3"');
    const missing = await client.personas.versions.get(created.id, 9).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(PersonaRefineError);
    expect(missing).toMatchObject({ status: 404, message: `version 9 of persona "${created.id}" not found` });
  });

  it('sets, reads and deletes labels; pins refine and check to them, reading X-Persona-Version', async () => {
    const persona = await client.personas.create({ name: 'Pinned', attributes: { vocabulary: { customers: 'members' } } });
    await client.personas.update(persona.id, { attributes: { vocabulary: { customers: 'clients' } } });
    expect(await client.personas.labels.set(persona.id, 'production', 1)).toEqual({ production: 1 });
    expect(await client.personas.labels.get(persona.id)).toEqual({ production: 1 });
    expect(await client.personas.labels.listPolicies(persona.id)).toEqual({
      production: { label: 'production', protected: true, minScore: null, minPassRate: null, maxAgeDays: null, isDefault: true },
    });

    const pinned = await client.refine({ provider: 'rules', personaId: persona.id, personaLabel: 'production', content: 'Dear customers' });
    expect(pinned.response).toBe('Dear members');
    expect(pinned.personaVersion).toBe(1);
    expect(JSON.parse(JSON.stringify(pinned))).toEqual({ response: 'Dear members' });
    const newest = await client.refine({ provider: 'rules', personaId: persona.id, content: 'Dear customers' });
    expect([newest.response, newest.personaVersion]).toEqual(['Dear clients', 2]);
    const checked = await client.check({ personaId: persona.id, personaVersion: 1, content: 'Dear members' });
    expect([checked.passed, checked.personaVersion]).toEqual([true, 1]);

    await client.personas.labels.delete(persona.id, 'production');
    expect(await client.personas.labels.get(persona.id)).toEqual({});
    // production's policy is listed even with no label set: it is protected by default.
    expect(Object.keys(await client.personas.labels.listPolicies(persona.id))).toEqual(['production']);
    // "policies" is a label like any other.
    expect(await client.personas.labels.set(persona.id, 'policies', 2)).toEqual({ policies: 2 });
    expect(await client.personas.labels.get(persona.id)).toEqual({ policies: 2 });
    const gone = await client.refine({ provider: 'rules', personaId: persona.id, personaLabel: 'production', content: 'x' }).catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404, message: `label "production" of persona "${persona.id}" not found` });
  });

  it('pages the audit trail with nextCursor', async () => {
    const persona = await client.personas.create({ name: 'Audited' });
    await client.personas.update(persona.id, { name: 'Audited 2' });
    await client.personas.labels.set(persona.id, 'staging', 2);
    const first = await client.audit.list({ personaId: persona.id, limit: 2 });
    expect(first.events.map((e) => e.action)).toEqual(['label.set', 'persona.updated']);
    expect(first.nextCursor).toBe(first.events[1]!.id);
    const second = await client.audit.list({ personaId: persona.id, limit: 2, cursor: first.nextCursor });
    expect(second.events.map((e) => e.action)).toEqual(['persona.created']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('CLI: personas history and personas label; import creates a version per update', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'persona-refine-history-'));
    const cli = (...argv: string[]) => runCli(argv, { cwd, env: { PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url } });
    try {
      const persona = await client.personas.create({ name: 'Shell', attributes: { tone: 'warm' } });
      writeFileSync(join(cwd, 'shell.json'), JSON.stringify({ id: persona.id, name: 'Shell', attributes: { tone: 'dry' } }));
      const imported = await cli('personas', 'import', 'shell.json', '--yes');
      expect(imported.code).toBe(0);
      expect(imported.stdout).toContain('updated    shell.json → version 2');

      expect(await cli('personas', 'label', persona.id, 'production', '1')).toMatchObject({ code: 0, stdout: 'production → version 1\n' });
      const history = await cli('personas', 'history', persona.id);
      expect(history.code).toBe(0);
      const lines = history.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^ {3}1 {2}\S+Z {2}key_\S+ {2}"Shell" {2}\[production\]$/);
      expect(lines[1]).toMatch(/^ {3}2 {2}\S+Z {2}key_\S+ {2}"Shell" {2}\[latest\]$/);

      expect(await cli('personas', 'label', persona.id, 'production')).toMatchObject({ code: 2 });
      expect(await cli('personas', 'label', persona.id, 'production', 'two')).toMatchObject({ code: 2 });
      const latest = await cli('personas', 'label', persona.id, 'latest', '1');
      expect(latest.code).toBe(1);
      expect(latest.stderr).toContain('label "latest" always means the newest version');
      expect((await cli('personas', 'history', '01900000-0000-7000-8000-000000000000')).code).toBe(1);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
