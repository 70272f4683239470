import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../../test/fakes/provider-server.js';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine } from '../src/index.js';
import { type CliRunOptions, runCli } from './helpers/cli.js';

const PROVIDER_KEY = 'sk-cli-provider-key-9876543210';

describe('persona-refine refine', () => {
  let fake: FakeProviderServer;
  let server: TestServer;
  let personaId: string;
  let cwd: string;
  const env = () => ({ PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url, PERSONA_REFINE_PROVIDER_KEY: PROVIDER_KEY });
  const cli = (argv: string[], options: Partial<CliRunOptions> = {}) => runCli(argv, { cwd, env: env(), ...options });
  const refineArgs = () => ['refine', '--persona', personaId, '--provider', 'openai'];

  function writeInputs(count: number): string[] {
    mkdirSync(join(cwd, 'in'), { recursive: true });
    return Array.from({ length: count }, (_, i) => {
      const name = `in/msg-${String(i + 1).padStart(2, '0')}.txt`;
      writeFileSync(join(cwd, name), `message ${i + 1}`);
      return name;
    });
  }

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({ env: { PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'), PROVIDER_TIMEOUT_MS: '2000' } });
    personaId = (await new PersonaRefine({ apiKey: server.key, baseUrl: server.url }).personas.create({ name: 'CLI voice' })).id;
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.reset();
    fake.setBehaviour({ mode: 'ok', reply: (text) => `refined: ${/message \d+|hello from stdin/.exec(text)?.[0]}` });
    cwd = mkdtempSync(join(tmpdir(), 'persona-refine-cli-'));
    return () => rmSync(cwd, { recursive: true, force: true });
  });

  it('refines stdin to stdout', async () => {
    const result = await cli([...refineArgs(), '--model', 'gpt-x'], { stdin: 'hello from stdin' });
    expect(result).toMatchObject({ code: 0, stdout: 'refined: hello from stdin\n', stderr: '' });
    expect(fake.requests[0]!.model).toBe('gpt-x');
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
  });

  it('a batch of 20 files with one provider failure writes 19, reports 19/1 and exits non-zero', async () => {
    const inputs = writeInputs(20);
    fake.enqueue('badRequest');
    const result = await cli([...refineArgs(), '--out', 'out', ...inputs]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\n20 files: 19 done, 1 failed, 0 retried, \d+ input \+ \d+ output tokens\n$/);
    const failed = result.stderr.split('\n').filter((line) => line.startsWith('failed'));
    expect(failed).toEqual([expect.stringMatching(/^failed {2}in\/msg-\d\d\.txt: provider "openai" rejected the request .*\(HTTP 400, from the provider, request id .+\)$/)]);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('done'))).toHaveLength(19);
    const written = readdirSync(join(cwd, 'out'));
    expect(written).toHaveLength(19);
    for (const name of written) expect(readFileSync(join(cwd, 'out', name), 'utf8')).toBe(`refined: message ${Number(name.slice(4, 6))}\n`);
    expect(result.stdout).toBe('');
  });

  it('runs at most --concurrency refines at once', async () => {
    fake.setLatency(100);
    const started = Date.now();
    const result = await cli([...refineArgs(), '--out', 'out', '--concurrency', '2', ...writeInputs(6)]);
    fake.setLatency(0);
    expect(result.code).toBe(0);
    // 6 files, 2 at a time, 100 ms each: at least three rounds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('counts files whose call had to be retried', async () => {
    const busy = await startTestServer({
      env: { PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'), MAX_CONCURRENT_REFINES_PER_ACCOUNT: '1' },
    });
    try {
      fake.setLatency(200);
      const persona = await new PersonaRefine({ apiKey: busy.key, baseUrl: busy.url }).personas.create({ name: 'Busy' });
      const result = await runCli(['refine', '--persona', persona.id, '--provider', 'openai', '--out', 'out', '--concurrency', '2', ...writeInputs(2)], {
        cwd,
        env: { ...env(), PERSONA_REFINE_URL: busy.url, PERSONA_REFINE_API_KEY: busy.key },
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/\n2 files: 2 done, 0 failed, 1 retried, \d+ input \+ \d+ output tokens\n$/);
    } finally {
      fake.setLatency(0);
      await busy.close();
    }
  });

  it('draws a progress bar on a terminal instead of a line per file', async () => {
    const result = await cli([...refineArgs(), '--out', 'out', ...writeInputs(3)], { tty: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('\r\x1b[2K[------------------------------] 0/3  done 0  failed 0  retried 0');
    expect(result.stderr).toContain('\r\x1b[2K[##############################] 3/3  done 3  failed 0  retried 0');
    expect(result.stderr).not.toMatch(/^done/m);
    expect(result.stderr).toMatch(/\r\x1b\[2K3 files: 3 done, 0 failed, 0 retried, \d+ input \+ \d+ output tokens\n$/);
  });

  it('a single file without --out goes to stdout', async () => {
    const [input] = writeInputs(1);
    const result = await cli([...refineArgs(), input!]);
    expect(result).toMatchObject({ code: 0, stdout: 'refined: message 1\n' });
    const inputTokens = Math.ceil(fake.requests[0]!.userText.length / 4);
    expect(result.stderr).toBe(`done    ${input}\n1 file: 1 done, 0 failed, 0 retried, ${inputTokens} input + 5 output tokens\n`);
  });

  it('the summary adds the tokens the provider reported, and says when it reported none', async () => {
    // Twelve characters each (three tokens), keeping the number the persona's preserve rule checks.
    const reply = (text: string) => `ok ${/message \d/.exec(text)?.[0]}`;
    fake.setBehaviour({ mode: 'ok', reply });
    const inputs = writeInputs(3);
    const sent = async () => (await fake.waitForRequests(3)).map((r) => Math.ceil(r.userText.length / 4));
    const counted = await cli([...refineArgs(), '--out', 'out', ...inputs]);
    const input = (await sent()).reduce((a, b) => a + b, 0);
    expect(counted.stderr).toMatch(new RegExp(`\\n3 files: 3 done, 0 failed, 0 retried, ${input} input \\+ 9 output tokens\\n$`));
    fake.reset();
    fake.enqueue({ mode: 'ok', reply, omitUsage: true });
    fake.setBehaviour({ mode: 'ok', reply });
    const partly = await cli([...refineArgs(), '--out', 'out2', '--concurrency', '1', ...inputs]);
    expect(partly.stderr).toMatch(/\n3 files: 3 done, 0 failed, 0 retried, \d+ input \+ 6 output tokens \(not reported for 1 file\)\n$/);
  });

  it('reads the provider key from the variable named by --provider-key-env, never from an argument', async () => {
    const result = await cli([...refineArgs(), '--provider-key-env', 'MY_OPENAI_KEY'], {
      stdin: 'hello from stdin',
      env: { ...env(), PERSONA_REFINE_PROVIDER_KEY: undefined, MY_OPENAI_KEY: 'sk-from-my-variable' },
    });
    expect(result.code).toBe(0);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-from-my-variable');
  });

  it.each([
    [['--persona', 'p'], /--provider NAME is required/],
    [['--provider', 'openai'], /--persona ID is required/],
    [['--persona', 'p', '--provider', 'openai', 'a.txt', 'b.txt'], /--out DIR is needed to refine more than one file/],
    [['--persona', 'p', '--provider', 'openai', 'a.txt', '-'], /"-" \(stdin\) cannot be mixed with files/],
    [['--persona', 'p', '--provider', 'openai', '--out', 'o', 'x/a.txt', 'y/a.txt'], /x\/a\.txt and y\/a\.txt would both be written to o\/a\.txt/],
    [['--persona', 'p', '--provider', 'openai', '--concurrency', '0'], /--concurrency must be a whole number of at least 1/],
  ])('exits 2 on a usage error: %j', async (args, message) => {
    const result = await cli(['refine', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(fake.requestCount).toBe(0);
  });

  it('exits 2 naming the variable when the provider key is missing', async () => {
    const result = await cli(refineArgs(), { env: { ...env(), PERSONA_REFINE_PROVIDER_KEY: undefined } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/set PERSONA_REFINE_PROVIDER_KEY to your OpenAI API key/);
  });

  it('exits 2 for a provider the service does not offer, naming the ones it does (from GET /v1/providers)', async () => {
    const result = await cli(['refine', '--persona', personaId, '--provider', 'opnai'], { stdin: 'hello from stdin' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown provider "opnai"; this service offers openai, anthropic, .*, rules/);
    expect(fake.requestCount).toBe(0);
  });

  it('needs no provider key for the offline "rules" provider, and sends none even when one is set', async () => {
    for (const providerKey of [undefined, PROVIDER_KEY]) {
      const result = await cli(['refine', '--persona', personaId, '--provider', 'rules'], {
        stdin: 'hello from stdin',
        env: { ...env(), PERSONA_REFINE_PROVIDER_KEY: providerKey },
      });
      expect(result).toMatchObject({ code: 0, stdout: 'hello from stdin\n' });
    }
    expect(fake.requestCount).toBe(0);
    expect(server.logs.join('')).not.toContain(PROVIDER_KEY);
  });

  it('a failed stdin refine exits 1 with the service\'s message', async () => {
    fake.setBehaviour('rejectKey');
    const result = await cli(refineArgs(), { stdin: 'hello from stdin' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^persona-refine: provider "openai" rejected providerApiKey \(HTTP 40\d\) \(HTTP 400, from the provider, request id .+\)\n$/);
    expect(result.stderr).not.toContain(PROVIDER_KEY);
  });
});
