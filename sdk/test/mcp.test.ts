import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type FakeProviderServer, startFakeProviderServer } from '../../test/fakes/provider-server.js';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine } from '../src/index.js';
import { type McpSession, buildCli, startMcp, textOf } from './helpers/mcp-server.js';

const OPENAI_KEY = 'sk-FAKE-not-a-key-mcp-openai-7Qm2Xv9Lp4';
const ATTRIBUTES = { tone: 'warm, direct', vocabulary: { customers: 'members' }, avoid: ['synergy'] };

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('persona-refine mcp', () => {
  let fake: FakeProviderServer;
  let server: TestServer;
  let mcp: McpSession;
  let personaId: string;
  /** Well formed, and no longer a persona. */
  let deletedId: string;
  const env = (extra: Record<string, string> = {}) => ({ PERSONA_REFINE_URL: server.url, PERSONA_REFINE_API_KEY: server.key, OPENAI_API_KEY: OPENAI_KEY, ...extra });
  const call = (name: string, args: Record<string, unknown> = {}) => mcp.client.callTool({ name, arguments: args });

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({ env: { PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'), PROVIDER_TIMEOUT_MS: '2000' } });
    const sdk = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    personaId = (await sdk.personas.create({ name: 'Acme support', attributes: ATTRIBUTES })).id;
    await sdk.personas.labels.set(personaId, 'production', 1);
    await sdk.personas.update(personaId, { attributes: { ...ATTRIBUTES, tone: 'warmer' } });
    deletedId = (await sdk.personas.create({ name: 'Gone' })).id;
    await sdk.personas.delete(deletedId);
    await buildCli();
    mcp = await startMcp(env());
  }, 120_000);
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.reset();
    fake.setBehaviour({ mode: 'ok', reply: (text) => `refined: ${/Hi customers[^\n]*/.exec(text)?.[0]}` });
  });

  it('lists exactly four tools, each with an input and an output schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map(({ name }) => name)).toEqual(['list_personas', 'get_persona', 'refine', 'check']);
    for (const tool of tools) {
      expect(tool.description).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.get_persona!.inputSchema.required).toEqual(['personaId']);
    expect(Object.keys(byName.refine!.inputSchema.properties!)).toEqual(['personaId', 'content', 'provider', 'model', 'personaLabel']);
    expect(byName.refine!.inputSchema.required).toEqual(['personaId', 'content']);
    expect(Object.keys(byName.check!.inputSchema.properties!)).toEqual(['personaId', 'content', 'original']);
  });

  it('list_personas gives each persona\'s id, name and labels, as structured content and as its JSON text', async () => {
    const result = await call('list_personas');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ personas: [{ id: personaId, name: 'Acme support', labels: { production: 1 } }] });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('get_persona gives the persona, newest version', async () => {
    const result = await call('get_persona', { personaId });
    expect(result.structuredContent).toEqual({ id: personaId, name: 'Acme support', attributes: { ...ATTRIBUTES, tone: 'warmer' } });
  });

  it('refine without a provider applies the persona\'s rules alone: no model called, no key needed', async () => {
    const result = await call('refine', { personaId, content: 'Hi customers, pure synergy.' });
    expect(result.structuredContent).toEqual({
      response: 'Hi members, pure synergy.',
      violations: { avoid: 1 },
      score: expect.any(Number),
      personaVersion: 2,
      provider: { id: 'rules' },
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('refine with openai sends OPENAI_API_KEY to the provider, and personaLabel pins the version', async () => {
    const result = await call('refine', { personaId, content: 'Hi customers, thanks.', provider: 'openai', model: 'gpt-x', personaLabel: 'production' });
    expect(result.structuredContent).toMatchObject({ response: 'refined: Hi members, thanks.', violations: {}, personaVersion: 1, provider: { id: 'openai', model: 'gpt-x' } });
    expect((result.structuredContent as { score: number }).score).toBeGreaterThanOrEqual(0);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it('refine uses PERSONA_REFINE_PROVIDER when the call names no provider', async () => {
    const openaiByDefault = await startMcp(env({ PERSONA_REFINE_PROVIDER: 'openai' }));
    try {
      const result = await openaiByDefault.client.callTool({ name: 'refine', arguments: { personaId, content: 'Hi customers.' } });
      expect(result.structuredContent).toMatchObject({ provider: { id: 'openai' } });
      expect(fake.requests).toHaveLength(1);
    } finally {
      await openaiByDefault.close();
    }
  });

  it('check reports passed, score and each violation; with original, the facts lost', async () => {
    const result = await call('check', { personaId, content: 'Pure synergy, members.', original: 'Pure synergy for 3 members.' });
    const verdict = result.structuredContent as { passed: boolean; score: number; violations: { rule: string }[]; personaVersion: number };
    expect(verdict).toMatchObject({ passed: false, score: expect.any(Number), personaVersion: 2 });
    expect(verdict.violations.map(({ rule }) => rule).sort()).toEqual(['avoid', 'preserve']);
  });

  it('serves each persona as the resource persona://<id>, and the template persona://{id}', async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: `persona://${personaId}`, name: 'Acme support', mimeType: 'application/json' })]);
    const { contents } = await mcp.client.readResource({ uri: `persona://${personaId}` });
    expect(contents).toEqual([{ uri: `persona://${personaId}`, mimeType: 'application/json', text: expect.any(String) }]);
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual({ id: personaId, name: 'Acme support', attributes: { ...ATTRIBUTES, tone: 'warmer' } });
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'persona://{id}', mimeType: 'application/json' })]);
  });

  it('reading an unknown persona\'s resource is MCP\'s resource-not-found error with the service\'s message', async () => {
    const failure = await mcp.client.readResource({ uri: `persona://${deletedId}` }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpError);
    expect(failure).toMatchObject({ code: -32002, message: expect.stringContaining(`persona "${deletedId}" not found`) });
    const foreign = await mcp.client.readResource({ uri: 'https://example.com/' }).catch((error: unknown) => error);
    expect(foreign).toMatchObject({ code: ErrorCode.InvalidParams });
  });

  describe('a call that fails answers isError with a message to act on', () => {
    const deleted = 'DELETED';
    it.each([
      ['get_persona', { personaId: deleted }, 'persona "DELETED" not found (HTTP 404, request id '],
      ['refine', { personaId: deleted, content: 'Hi.' }, 'persona "DELETED" not found (HTTP 404, request id '],
      ['check', { personaId: deleted, content: 'Hi.' }, 'persona "DELETED" not found (HTTP 404, request id '],
      ['get_persona', {}, "personaId is required: The persona's id, as list_personas gives it"],
      ['refine', { personaId: 'x' }, 'content is required: The text to rewrite'],
      ['check', { personaId: 42, content: 'Hi.' }, 'personaId must be a string'],
      ['get_persona', { personaId: 'x', persona: 'x' }, 'unknown argument "persona"; the arguments are personaId'],
      ['refine', { personaId: 'x', content: 'Hi.', provider: 'gpt-9' }, 'unknown provider "gpt-9"; this service offers openai, anthropic, '],
      ['no_such_tool', {}, 'unknown tool "no_such_tool"; the tools are list_personas, get_persona, refine, check'],
    ])('%s %j', async (name, args, message) => {
      const withId = (value: unknown) => (value === deleted ? deletedId : value);
      const result = await call(name, Object.fromEntries(Object.entries(args).map(([key, value]) => [key, withId(value)])));
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(message.replace(deleted, deletedId));
      expect(result.structuredContent).toBeUndefined();
    });

    it('a provider that needs a key names the variable to set', async () => {
      const keyless = await startMcp(env({ OPENAI_API_KEY: '' }));
      try {
        const result = await keyless.client.callTool({ name: 'refine', arguments: { personaId, content: 'Hi.', provider: 'openai' } });
        expect(result).toMatchObject({ isError: true });
        expect(textOf(result)).toBe('provider "openai" needs a key: set OPENAI_API_KEY in the MCP server\'s environment');
        expect(fake.requests).toHaveLength(0);
      } finally {
        await keyless.close();
      }
    });

    it('a provider\'s failure is the service\'s message, marked as the provider\'s', async () => {
      fake.setBehaviour('badRequest');
      const result = await call('refine', { personaId, content: 'Hi.', provider: 'openai' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^provider "openai" rejected the request .*\(HTTP 400, from the provider, request id .+\)$/);
    });

    it('an unreachable service says it could not reach it, and where', async () => {
      const port = await closedPort();
      const unreachable = await startMcp(env({ PERSONA_REFINE_URL: `http://127.0.0.1:${port}` }));
      try {
        const result = await unreachable.client.callTool({ name: 'list_personas', arguments: {} });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(new RegExp(`^could not reach persona-refine: .*127\\.0\\.0\\.1:${port}`));
        expect(unreachable.stderr()).toContain(`serving http://127.0.0.1:${port} over stdio`);
      } finally {
        await unreachable.close();
      }
    });
  });
});
