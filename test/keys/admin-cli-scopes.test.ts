/** The admin CLI's keys: without --scopes a key has every scope (*); with --scopes only those; keys list shows them, never a secret. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliCreateAccount } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('admin CLI keys with scopes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('keys create gives * by default and exactly --scopes when given; unknown scopes are refused', async () => {
    const { key: first } = await cliCreateAccount(server.databaseUrl, 'cli-team');
    expect((await (await server.request('/v1/keys/current', { key: first })).json()).scopes).toEqual(['*']);

    const out = (await cli(server.databaseUrl, 'keys', 'create', '--account', 'cli-team', '--scopes', 'refine,personas:read', '--name', 'blog app')).trim().split('\n');
    const limited = out.at(-1)!;
    expect((await (await server.request('/v1/keys/current', { key: limited })).json()).scopes).toEqual(['refine', 'personas:read']);
    const refused = await server.request('/v1/personas', { method: 'POST', key: limited, json: { name: 'x' } });
    expect(await refused.json()).toEqual({ error: 403, message: 'this key lacks the scope "personas:write"' });

    const listed = await cli(server.databaseUrl, 'keys', 'list');
    expect(listed).toMatch(/cli-team\s+blog app\s+refine,personas:read\s+prk_/);
    expect(listed).not.toContain(limited.slice(10, 16));
    await expect(cli(server.databaseUrl, 'keys', 'create', '--account', 'cli-team', '--scopes', 'personas:admin')).rejects.toMatchObject({
      stderr: expect.stringContaining('unknown scope "personas:admin"'),
    });
  });

  it('keys create with an empty --scopes is an error, not a * key', async () => {
    await cliCreateAccount(server.databaseUrl, 'cli-empty');
    const before = await cli(server.databaseUrl, 'keys', 'list');
    for (const args of [['--scopes', ''], ['--scopes', ' , '], ['--scopes=']]) {
      await expect(cli(server.databaseUrl, 'keys', 'create', '--account', 'cli-empty', ...args), args.join(' ')).rejects.toMatchObject({
        stderr: expect.stringContaining('--scopes needs at least one scope'),
      });
    }
    expect(await cli(server.databaseUrl, 'keys', 'list')).toBe(before);
  });
});
