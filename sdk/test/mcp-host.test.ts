/**
 * `persona-refine mcp` as an agent host runs it: started from a configuration block, stopped by
 * closing its stdin, stdout for the protocol alone, and no key in anything it says.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { type FakeProviderServer, startFakeProviderServer } from '../../test/fakes/provider-server.js';
import { secretFragmentsIn } from '../../test/helpers/secrets.js';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine } from '../src/index.js';
import { runCli } from './helpers/cli.js';
import { BIN, type McpSession, buildCli, startMcp } from './helpers/mcp-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
/** One per provider variable, sharing no 6 characters with anything the server says. */
const PROVIDER_KEYS = {
  OPENAI_API_KEY: 'sk-FAKE-not-a-key-Q7m2Xv9Lp4Rt',
  ANTHROPIC_API_KEY: 'sk-FAKE-not-a-key-W3n8Bc1Hz6Ks',
  GEMINI_API_KEY: 'sk-FAKE-not-a-key-J5d0Yf4Uq9Mg',
  GROQ_API_KEY: 'sk-FAKE-not-a-key-T2v7Pe3Ni8Lw',
  MISTRAL_API_KEY: 'sk-FAKE-not-a-key-R6x1Ka5Go0Zb',
  DEEPSEEK_API_KEY: 'sk-FAKE-not-a-key-E9c4Sm2Vt7Qh',
  XAI_API_KEY: 'sk-FAKE-not-a-key-U1y6Ld8Wr3Xn',
  PERSONA_REFINE_PROVIDER_KEY: 'sk-FAKE-not-a-key-A4j9Oq5Fb2Ci',
};

describe('persona-refine mcp, as a host runs it', () => {
  let fake: FakeProviderServer;
  let server: TestServer;
  let personaId: string;

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({
      env: { PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'), PROVIDER_BASE_URL_ANTHROPIC: fake.baseUrl('anthropic'), PROVIDER_TIMEOUT_MS: '2000' },
    });
    personaId = (await new PersonaRefine({ apiKey: server.key, baseUrl: server.url }).personas.create({ name: 'Host voice', attributes: { avoid: ['synergy'] } })).id;
    await buildCli();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('starts from the configuration block of README.md\'s "From Python and from agents", as written', async () => {
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const section = /\n## From Python and from agents\n([\s\S]*?)(?=\n## |$)/.exec(readme)?.[1];
    const block = section && /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(block, 'README.md\'s "From Python and from agents" shows the mcpServers JSON block').toBeTruthy();
    const entry = (JSON.parse(block!.replaceAll('/path/to/persona-refine', ROOT)) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> })
      .mcpServers['persona-refine']!;
    expect(Object.keys(entry.env)).toEqual(expect.arrayContaining(['PERSONA_REFINE_URL', 'PERSONA_REFINE_API_KEY']));
    // The placeholders become this server and fake keys; everything else runs as written.
    const env = Object.fromEntries(
      Object.entries(entry.env).map(([name, value]) => {
        if (name === 'PERSONA_REFINE_URL') return [name, server.url];
        if (name === 'PERSONA_REFINE_API_KEY') return [name, server.key];
        return [name, name in PROVIDER_KEYS ? PROVIDER_KEYS[name as keyof typeof PROVIDER_KEYS] : value];
      }),
    );
    const session = await startMcp(env, entry.command, entry.args);
    try {
      expect((await session.client.listTools()).tools.map(({ name }) => name).sort()).toEqual(['check', 'get_persona', 'list_personas', 'refine']);
      expect(await session.client.callTool({ name: 'list_personas', arguments: {} })).not.toHaveProperty('isError', true);
    } finally {
      await session.close();
    }
  });

  it('never shows the service key or a provider key, in a result, an error or on stderr', async () => {
    const said: string[] = [];
    const sessions: McpSession[] = [];
    const open = async (env: Record<string, string>) => {
      const session = await startMcp({ PERSONA_REFINE_URL: server.url, ...PROVIDER_KEYS, ...env });
      sessions.push(session);
      return session;
    };
    const wrongServiceKey = 'prk_test_Zr5Nc8Qe2Wv7Lp1Dk4Hs9Mx3Ta6Jb0Uf';
    try {
      const { client } = await open({ PERSONA_REFINE_API_KEY: server.key });
      const calls: [string, Record<string, unknown>][] = [
        ['list_personas', {}],
        ['get_persona', { personaId }],
        ['check', { personaId, content: 'Pure synergy.' }],
        ['refine', { personaId, content: 'Hi.', provider: 'openai' }],
        ['refine', { personaId, content: 'Hi.', provider: 'openai' }],
        ['refine', { personaId, content: 'Hi.', provider: 'anthropic' }],
        ['refine', { personaId, content: 'Hi.', provider: 'anthropic' }],
        ['refine', { personaId: 'not a persona', content: 'Hi.' }],
      ];
      // A provider that quotes the key back in its error, whole or in part: the service scrubs what it relays.
      fake.enqueue('ok', { mode: 'badRequest', message: `invalid key ${PROVIDER_KEYS.OPENAI_API_KEY}` }, 'rejectKey', {
        mode: 'badRequest',
        message: `no such key: ${PROVIDER_KEYS.ANTHROPIC_API_KEY.slice(4)}`,
      });
      for (const [name, args] of calls) said.push(JSON.stringify(await client.callTool({ name, arguments: args })));
      said.push(JSON.stringify(await client.listResources()), JSON.stringify(await client.readResource({ uri: `persona://${personaId}` })));
      const unauthorized = await open({ PERSONA_REFINE_API_KEY: wrongServiceKey });
      said.push(JSON.stringify(await unauthorized.client.callTool({ name: 'list_personas', arguments: {} })));
      expect(said.filter((text) => text.includes('"isError":true'))).toHaveLength(5);
    } finally {
      for (const session of sessions) await session.close();
    }
    const everything = [...said, ...sessions.map((session) => session.stderr())].join('\n');
    for (const key of [server.key, wrongServiceKey, ...Object.values(PROVIDER_KEYS)]) expect(secretFragmentsIn(everything, key)).toEqual([]);
  });

  describe('its process', () => {
    let child: ChildProcessWithoutNullStreams;
    let stdout = '';
    let stderr = '';
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answered = (id: number) => expect.poll(() => stdout.split('\n').some((line) => line.includes(`"id":${id}`)), { timeout: 10_000 }).toBe(true);
    /** The exit code and signal, or 'still running' after 10 s: a server that ignores closed stdin fails here, not at the test's timeout. */
    const exited = () =>
      Promise.race([
        once(child, 'exit') as Promise<[number | null, string | null]>,
        // sleeps because the absence of an exit can only be observed as time passing without one
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000).unref()),
      ]);

    beforeAll(async () => {
      child = spawn(process.execPath, [BIN, 'mcp'], {
        env: { PATH: process.env.PATH, PERSONA_REFINE_URL: server.url, PERSONA_REFINE_API_KEY: server.key, OPENAI_API_KEY: PROVIDER_KEYS.OPENAI_API_KEY },
      });
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    });
    afterAll(() => {
      if (child.exitCode === null) child.kill();
    });

    it('exits 0 when the host closes its stdin, stopping the provider call in flight', async () => {
      fake.reset();
      fake.setBehaviour('hang');
      send({ id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await answered(1);
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list' });
      await answered(2);
      send({ id: 3, method: 'tools/call', params: { name: 'refine', arguments: { personaId, content: 'Hi.', provider: 'openai' } } });
      const [request] = await fake.waitForRequests(1);
      child.stdin.end();
      expect(await exited()).toEqual([0, null]);
      await fake.waitForClientClose(request!);
    });

    it('wrote nothing but JSON-RPC messages on stdout, and its log on stderr', () => {
      const lines = stdout.split('\n');
      expect(lines.pop()).toBe('');
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(stderr).toContain(`persona-refine mcp: serving ${server.url} over stdio; refine's default provider is rules`);
    });
  });

  describe('its command line', () => {
    const cli = (argv: string[], env: Record<string, string> = { PERSONA_REFINE_API_KEY: server.key }) => runCli(argv, { cwd: ROOT, env });

    it('mcp --help explains every variable it reads', async () => {
      const { code, stdout } = await cli(['mcp', '--help']);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^persona-refine mcp: a Model Context Protocol server/);
      for (const variable of ['PERSONA_REFINE_API_KEY', 'PERSONA_REFINE_URL', 'PERSONA_REFINE_PROVIDER', ...Object.keys(PROVIDER_KEYS)]) expect(stdout).toContain(`  ${variable} `);
    });

    it('--help lists the mcp command', async () => {
      expect((await cli(['--help'])).stdout).toMatch(/\n {2}mcp {2,}serve your personas/);
    });

    it('loads the MCP SDK for mcp alone: every other command starts without it, and mcp says how to install it', async () => {
      // A resolve hook that answers as Node does for a package that is not installed.
      const refuse = `export async function resolve(specifier, context, next) {
        if (specifier.startsWith('@modelcontextprotocol/')) throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
        return next(specifier, context);
      }`;
      const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(refuse)}`)});`;
      const withoutMcpSdk = (args: string[]) =>
        promisify(execFile)(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, BIN, ...args], {
          env: { PATH: process.env.PATH, PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url },
        }).then(({ stdout }) => stdout, (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }));
      expect(await withoutMcpSdk(['--version'])).toMatch(/^\d+\.\d+\.\d+\n$/);
      expect(await withoutMcpSdk(['mcp', '--help'])).toMatch(/^persona-refine mcp: /);
      expect(await withoutMcpSdk(['personas', 'list'])).toMatch(/Host voice/);
      expect(await withoutMcpSdk(['mcp'])).toEqual({
        code: 1,
        stderr: 'persona-refine: mcp needs the package @modelcontextprotocol/sdk beside @persona-refine/sdk: npm install @modelcontextprotocol/sdk\n',
      });
    });

    it('refuses an argument without repeating it, and a missing API key, before serving', async () => {
      const pasted = await cli(['mcp', PROVIDER_KEYS.OPENAI_API_KEY]);
      expect(pasted).toMatchObject({ code: 2, stdout: '' });
      expect(pasted.stderr).toContain('mcp takes no arguments');
      expect(secretFragmentsIn(pasted.stderr, PROVIDER_KEYS.OPENAI_API_KEY)).toEqual([]);
      expect(await cli(['mcp'], {})).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('set PERSONA_REFINE_API_KEY') });
    });
  });
});
