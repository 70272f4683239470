/** client.keys, PermissionError, label policies and the CLI's keys commands against a real server. */
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PermissionError, PersonaRefine, PersonaRefineError } from '../src/index.js';
import { runCli } from './helpers/cli.js';

describe('client.keys and PermissionError against a real server', () => {
  let server: TestServer;
  let admin: PersonaRefine;
  const clientFor = (apiKey: string) => new PersonaRefine({ apiKey, baseUrl: server.url });

  beforeAll(async () => {
    server = await startTestServer();
    admin = clientFor(server.key);
  });
  afterAll(() => server.close());

  it('creates, lists, gets, rotates and revokes keys; the secret only in create and rotate', async () => {
    const issued = await admin.keys.create({ name: 'app', scopes: ['refine'], limits: { tokensPerDay: 1000 } });
    expect(issued.secret).toMatch(/^prk_/);
    expect(issued.limits).toEqual({ tokensPerDay: 1000, refinesPerMinute: null });
    const { secret: _secret, ...listed } = issued;
    expect(await admin.keys.list()).toContainEqual(listed);
    expect(await admin.keys.get(issued.id)).toEqual(listed);
    expect(await clientFor(issued.secret).keys.current()).toEqual({ id: issued.id, scopes: ['refine'], limits: issued.limits });
    const rotated = await admin.keys.rotate(issued.id, { graceSeconds: 60 });
    expect(rotated.secret).not.toBe(issued.secret);
    expect(rotated.previousSecretExpiresAt).not.toBeNull();
    await admin.keys.revoke(issued.id);
    await expect(admin.keys.get(issued.id)).rejects.toMatchObject({ status: 404 });
  });

  it('a 403 is a PermissionError naming the scope, not retried', async () => {
    const reader = await admin.keys.create({ name: 'reader', scopes: ['personas:read'] });
    const persona = await admin.personas.create({ name: 'Guarded' });
    const error = await clientFor(reader.secret).personas.update(persona.id, { name: 'Changed' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ status: 403, scope: 'personas:write', message: 'this key lacks the scope "personas:write"' });
  });

  it('label policies: production protected for a new persona, set and removed', async () => {
    const persona = await admin.personas.create({ name: 'Released' });
    expect((await admin.personas.labels.getPolicy(persona.id, 'production')).protected).toBe(true);
    const writer = clientFor((await admin.keys.create({ name: 'writer', scopes: ['labels:write'] })).secret);
    await expect(writer.personas.labels.set(persona.id, 'production', 1)).rejects.toMatchObject({ scope: 'labels:protected' });
    expect(await admin.personas.labels.setPolicy(persona.id, 'production', { protected: false })).toMatchObject({ protected: false, isDefault: false });
    expect(await writer.personas.labels.set(persona.id, 'production', 1)).toEqual({ production: 1 });
    await admin.personas.labels.deletePolicy(persona.id, 'production');
    expect((await admin.personas.labels.getPolicy(persona.id, 'production')).isDefault).toBe(true);
  });

  it('usage.list({ groupBy: "key" }) gives each row its keyId', async () => {
    const persona = await admin.personas.create({ name: 'Counted' });
    await admin.refine({ provider: 'rules', personaId: persona.id, content: 'Hello.' });
    const rows = await admin.usage.list({ groupBy: 'key' });
    const current = await admin.keys.current();
    expect(rows.some((r) => r.keyId === current.id && r.refines > 0)).toBe(true);
  });

  it('the CLI: keys create prints the secret as the last line, list never does, rotate and revoke', async () => {
    const env = { PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url };
    const created = await runCli(['keys', 'create', '--name', 'ci', '--scopes', 'refine,personas:read', '--tokens-per-day', '5000'], { env, cwd: tmpdir() });
    expect(created.code).toBe(0);
    const lines = created.stdout.trimEnd().split('\n');
    const secret = lines.at(-1)!;
    expect(secret).toMatch(/^prk_[A-Za-z0-9_-]{43}$/);
    const id = /created key (key_\S+)/.exec(created.stdout)![1]!;
    const listed = await runCli(['keys', 'list'], { env, cwd: tmpdir() });
    expect(listed.stdout).toContain(`${id}  ${secret.slice(0, 10)}…  "ci"  refine,personas:read  (5000 tokens/day)`);
    expect(listed.stdout).not.toContain(secret.slice(10, 16));
    const current = await runCli(['keys', 'current'], { env: { ...env, PERSONA_REFINE_API_KEY: secret }, cwd: tmpdir() });
    expect(current.stdout).toBe(`${id}  refine,personas:read  (5000 tokens/day)\n`);
    const rotated = await runCli(['keys', 'rotate', id, '--grace', '30'], { env, cwd: tmpdir() });
    expect(rotated.stdout).toMatch(/the old secret works until /);
    expect(rotated.stdout.trimEnd().split('\n').at(-1)).toMatch(/^prk_/);
    expect((await runCli(['keys', 'revoke', id], { env, cwd: tmpdir() })).code).toBe(0);
    const refused = await runCli(['keys', 'list'], { env: { ...env, PERSONA_REFINE_API_KEY: rotated.stdout.trimEnd().split('\n').at(-1)! }, cwd: tmpdir() });
    expect(refused.code).toBe(1);
    const lacking = await runCli(['keys', 'list'], { env: { ...env, PERSONA_REFINE_API_KEY: (await admin.keys.create({ name: 'r', scopes: ['refine'] })).secret }, cwd: tmpdir() });
    expect(lacking.code).toBe(1);
    expect(lacking.stderr).toMatch(/^persona-refine: this key lacks the scope "keys:admin" \(HTTP 403/);
    expect((await runCli(['keys', 'bogus'], { env, cwd: tmpdir() })).stderr).toMatch(/unknown keys command "bogus"/);
  });
});
