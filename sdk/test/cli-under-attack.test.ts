/**
 * Issue 29 against the CLI (findings 1, 4, 7, 8, 11) and issue 24's CLI items: crafted files in a
 * personas folder, keys with a pasted newline, terminal escapes from every outside source,
 * outputs that would overwrite inputs, 2xx answers of the wrong shape, rules left broken.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../../test/fakes/provider-server.js';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { EXIT_BELOW_BAR } from '../src/cli/exit-codes.js';
import { type Persona, PersonaRefine } from '../src/index.js';
import { type CliRunOptions, runCli } from './helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

const PROVIDER_KEY = 'sk-test-CliUnderAttack-0123456789';
/** Sets the terminal title, clears the screen, recolours; then an 8-bit CSI and a bell. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u001b[31m\u009b2Jred\u0007';
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('persona-refine CLI under attack', () => {
  let fake: FakeProviderServer;
  let server: TestServer;
  let client: PersonaRefine;
  let cwd: string;
  let outside: string;
  const env = (extra: Record<string, string> = {}) => ({ PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url, PERSONA_REFINE_PROVIDER_KEY: PROVIDER_KEY, ...extra });
  const cli = (argv: string[], options: Partial<CliRunOptions> = {}) => runCli(argv, { cwd, env: env(), ...options });

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({ env: { PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'), PROVIDER_TIMEOUT_MS: '2000' } });
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.reset();
    cwd = mkdtempSync(join(tmpdir(), 'persona-refine-attack-'));
    outside = mkdtempSync(join(tmpdir(), 'persona-refine-outside-'));
    return () => {
      rmSync(cwd, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    };
  });

  describe('finding 1: export never writes through a symlink, outside --dir, or over a file it did not write', () => {
    const names = (persona: Persona) => ({
      short: `case.${persona.id.replace(/-/g, '').slice(-8)}.json`,
      full: `case.${persona.id}.json`,
    });

    it('junk at the short name and a symlink at the full-id name: the target outside is untouched', async () => {
      const persona = await client.personas.create({ name: 'Case', attributes: { tone: 'warm' } });
      const { short, full } = names(persona);
      const victim = join(outside, 'victim.txt');
      writeFileSync(victim, 'precious\n');
      mkdirSync(join(cwd, 'personas'));
      writeFileSync(join(cwd, 'personas', short), 'junk, not JSON');
      symlinkSync(victim, join(cwd, 'personas', full));

      const result = await cli(['personas', 'export']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`note: personas/${short} left as is: not valid JSON`);
      expect(result.stdout).toContain(`note: personas/${full} left as is: is a symbolic link`);
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      expect(readFileSync(join(cwd, 'personas', short), 'utf8')).toBe('junk, not JSON');
      const written = readFileSync(join(cwd, 'personas', `case.${persona.id}.2.json`), 'utf8');
      expect(JSON.parse(written)).toEqual({ id: persona.id, name: 'Case', attributes: { tone: 'warm' } });
    });

    it('dangling symlinks at the persona\'s names create no file outside --dir', async () => {
      const persona = await client.personas.create({ name: 'Case' });
      const { short, full } = names(persona);
      const targets = [join(outside, 'short.json'), join(outside, 'full.json')];
      mkdirSync(join(cwd, 'personas'));
      symlinkSync(targets[0]!, join(cwd, 'personas', short));
      symlinkSync(targets[1]!, join(cwd, 'personas', full));
      expect((await cli(['personas', 'export'])).code).toBe(0);
      for (const target of targets) expect(existsSync(target)).toBe(false);
      expect(readdirSync(join(cwd, 'personas'))).toContain(`case.${persona.id}.2.json`);
    });

    it('a hand-made file at the fallback name (about another persona) is not overwritten', async () => {
      const persona = await client.personas.create({ name: 'Case' });
      const { short, full } = names(persona);
      const handMade = `{ "name": "Someone not on the server", "attributes": { "tone": "mine" } }\n`;
      mkdirSync(join(cwd, 'personas'));
      writeFileSync(join(cwd, 'personas', short), '[]');
      writeFileSync(join(cwd, 'personas', full), handMade);
      expect((await cli(['personas', 'export'])).code).toBe(0);
      expect(readFileSync(join(cwd, 'personas', full), 'utf8')).toBe(handMade);
      expect(JSON.parse(readFileSync(join(cwd, 'personas', `case.${persona.id}.2.json`), 'utf8')).id).toBe(persona.id);
    });

    it('a symlink holding the persona\'s own file (matched by id) is neither followed nor written through', async () => {
      const persona = await client.personas.create({ name: 'Case', attributes: { tone: 'new' } });
      const victim = join(outside, 'elsewhere.json');
      const original = `${JSON.stringify({ id: persona.id, name: 'Case', attributes: { tone: 'old' } })}\n`;
      writeFileSync(victim, original);
      mkdirSync(join(cwd, 'personas'));
      symlinkSync(victim, join(cwd, 'personas', 'linked.json'));
      expect((await cli(['personas', 'export'])).code).toBe(0);
      expect(readFileSync(victim, 'utf8')).toBe(original);
      const import_ = await cli(['personas', 'import', 'personas']);
      expect(import_.stdout).toContain('error      personas/linked.json: is a symbolic link');
    });
  });

  describe('finding 4: a key with a pasted newline is refused before any request, never printed', () => {
    let proxy: ScriptedServer;
    beforeEach(async () => {
      proxy = await startScriptedServer(() => ({ forward: true }), server.url);
      return () => proxy.close();
    });

    it.each([
      ['PERSONA_REFINE_API_KEY', () => `${server.key}\n`],
      ['PERSONA_REFINE_PROVIDER_KEY', () => `${PROVIDER_KEY}\n`],
    ])('%s with a newline: exit 2, the variable named, the key nowhere in the output', async (variable, key) => {
      const result = await runCli(['refine', '--persona', 'p', '--provider', 'openai'], { cwd, env: env({ PERSONA_REFINE_URL: proxy.url, [variable]: key() }), stdin: 'hello' });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${variable} contains a control character`);
      for (const fragment of [server.key.slice(4, 16), PROVIDER_KEY.slice(8, 20)]) expect(result.stderr + result.stdout).not.toContain(fragment);
      expect(proxy.seen).toHaveLength(0);
    });
  });

  describe('finding 7: nothing from outside reaches the terminal with its control sequences', () => {
    it('a provider error message', async () => {
      const persona = await client.personas.create({ name: 'Plain' });
      fake.setBehaviour({ mode: 'badRequest', message: `bad${HOSTILE} request` });
      const result = await cli(['refine', '--persona', persona.id, '--provider', 'openai'], { stdin: 'hello' });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('bad');
      expect(result.stderr).not.toMatch(TERMINAL_CONTROL);
    });

    it('refined text on a terminal stdout and file names in batch lines', async () => {
      const persona = await client.personas.create({ name: 'Plain' });
      fake.setBehaviour({ mode: 'ok', reply: () => `text${HOSTILE} end` });
      const stdin = await cli(['refine', '--persona', persona.id, '--provider', 'openai'], { stdin: 'hello', stdoutTty: true });
      // The 8-bit CSI goes with its parameters: no "2J" is left behind.
      expect(stdin.stdout).toBe('textred end\n');
      const name = `in${HOSTILE}.txt`;
      writeFileSync(join(cwd, name), 'hello');
      const batch = await cli(['refine', '--persona', persona.id, '--provider', 'openai', '--out', 'out', name]);
      expect(batch.code).toBe(0);
      expect(batch.stderr).toContain('done    in');
      expect(batch.stderr).not.toMatch(TERMINAL_CONTROL);
      // The file itself is data: written as refined.
      expect(readFileSync(join(cwd, 'out', name), 'utf8')).toBe(`text${HOSTILE} end\n`);
    });

    it('file names, names, JSON keys and values in diff and import plans', async () => {
      mkdirSync(join(cwd, 'personas'));
      writeFileSync(join(cwd, 'personas', `evil${HOSTILE}.json`), JSON.stringify({ name: `Name \u009b2J`, attributes: { [`key${HOSTILE}`]: `value \u009d0;t\u0007` } }));
      writeFileSync(join(cwd, 'personas', `broken${HOSTILE}.json`), `{ "oops${HOSTILE}`);
      for (const command of ['diff', 'import']) {
        const result = await cli(['personas', command, 'personas'], { stdoutTty: true });
        expect(result.stdout + result.stderr).toContain('evil');
        expect(result.stdout + result.stderr).not.toMatch(TERMINAL_CONTROL);
        // The 8-bit CSI in the name goes with its parameters.
        if (command === 'import') expect(result.stdout).toContain('"Name "');
      }
    });

    it('refined text on a piped stdout is data: byte for byte, as --out writes it; stderr is still stripped', async () => {
      const persona = await client.personas.create({ name: 'Plain' });
      const reply = `text${HOSTILE}\r\f end`;
      fake.setBehaviour({ mode: 'ok', reply: () => reply });
      const piped = await cli(['refine', '--persona', persona.id, '--provider', 'openai'], { stdin: 'hello' });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toBe(`${reply}\n`);
      fake.setBehaviour({ mode: 'badRequest', message: `bad${HOSTILE} request` });
      const failed = await cli(['refine', '--persona', persona.id, '--provider', 'openai'], { stdin: 'hello' });
      expect(failed.stderr).toContain('bad');
      expect(failed.stderr).not.toMatch(TERMINAL_CONTROL);
    });
  });

  describe('finding 8: --out never overwrites an input, nor one output another, nor writes through a symlink', () => {
    let personaId: string;
    beforeEach(async () => {
      personaId = (await client.personas.create({ name: 'Outputs' })).id;
      fake.setBehaviour({ mode: 'ok', reply: () => 'refined' });
    });
    const refine = (...files: string[]) => cli(['refine', '--persona', personaId, '--provider', 'openai', '--out', ...files]);

    it('refine --out drafts drafts/a.txt refuses, the draft intact', async () => {
      mkdirSync(join(cwd, 'drafts'));
      writeFileSync(join(cwd, 'drafts', 'a.txt'), 'my draft');
      for (const out of ['drafts', './drafts/', join(cwd, 'drafts')]) {
        const result = await refine(out, 'drafts/a.txt');
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/is one of the inputs; refusing to overwrite it/);
      }
      expect(readFileSync(join(cwd, 'drafts', 'a.txt'), 'utf8')).toBe('my draft');
      expect(fake.requests).toHaveLength(0);
    });

    it('X.txt and x.txt (one output on a case-insensitive file system) are refused before any work', async () => {
      mkdirSync(join(cwd, 'a'));
      mkdirSync(join(cwd, 'b'));
      writeFileSync(join(cwd, 'a', 'X.txt'), 'upper');
      writeFileSync(join(cwd, 'b', 'x.txt'), 'lower');
      const result = await refine('out', 'a/X.txt', 'b/x.txt');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('a/X.txt and b/x.txt would both be written to out/x.txt');
      expect(fake.requests).toHaveLength(0);
    });

    it('a symlink planted in --out is not written through', async () => {
      const victim = join(outside, 'victim.txt');
      writeFileSync(victim, 'precious');
      mkdirSync(join(cwd, 'out'));
      symlinkSync(victim, join(cwd, 'out', 'a.txt'));
      writeFileSync(join(cwd, 'a.txt'), 'hello');
      const result = await refine('out', 'a.txt');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('is a symbolic link; not written');
      expect(readFileSync(victim, 'utf8')).toBe('precious');
    });
  });

  it('finding 11: an update answered 200 with a null body is reported as failed; the import goes on with the next file', async () => {
    const a = await client.personas.create({ name: 'A', attributes: { tone: 'a' } });
    const b = await client.personas.create({ name: 'B', attributes: { tone: 'b' } });
    let patched = 0;
    const proxy = await startScriptedServer((request) => (request.method === 'PATCH' && patched++ === 0 ? { answer: { status: 200, body: 'null' } } : { forward: true }), server.url);
    try {
      mkdirSync(join(cwd, 'personas'));
      writeFileSync(join(cwd, 'personas', 'a.json'), JSON.stringify({ id: a.id, name: 'A', attributes: { tone: 'a2' } }));
      writeFileSync(join(cwd, 'personas', 'b.json'), JSON.stringify({ id: b.id, name: 'B', attributes: { tone: 'b2' } }));
      const result = await runCli(['personas', 'import', 'personas', '--yes'], { cwd, env: env({ PERSONA_REFINE_URL: proxy.url }) });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/failed {5}personas\/a\.json: HTTP 200 answer is null; expected a JSON object/);
      expect(result.stdout).toContain('applied 1 of 2');
      expect((await client.personas.get(b.id)).attributes).toEqual({ tone: 'b2' });
    } finally {
      await proxy.close();
    }
  });

  it('finding 2: import --yes through a proxy that loses the update\'s answer reports it applied, and it is applied once', async () => {
    const persona = await client.personas.create({ name: 'Lost answer', attributes: { tone: 'a' } });
    let patches = 0;
    const proxy = await startScriptedServer((request) => (request.method === 'PATCH' && patches++ === 0 ? { forward: true, thenDrop: true } : { forward: true }), server.url);
    try {
      mkdirSync(join(cwd, 'personas'));
      writeFileSync(join(cwd, 'personas', 'p.json'), JSON.stringify({ id: persona.id, name: 'Lost answer', attributes: { tone: 'b' } }));
      const result = await runCli(['personas', 'import', 'personas', '--yes'], { cwd, env: env({ PERSONA_REFINE_URL: proxy.url }) });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('updated    personas/p.json → version 2');
      expect(result.stdout).toContain('applied 1 of 1');
      expect(patches).toBe(2);
      expect((await client.personas.versions.list(persona.id)).map((v) => v.version)).toEqual([1, 2]);
    } finally {
      await proxy.close();
    }
  });

  describe('issue 24: the CLI tells the truth', () => {
    it(`a refine that leaves rules broken says so on stderr and exits ${EXIT_BELOW_BAR}, streamed or not, stdin or files`, async () => {
      const persona = await client.personas.create({ name: 'No synergy', attributes: { avoid: ['synergy'] } });
      const args = ['refine', '--persona', persona.id, '--provider', 'rules'];
      const stdin = await cli(args, { stdin: 'pure synergy here' });
      expect(stdin).toMatchObject({ code: EXIT_BELOW_BAR, stderr: 'rules still broken: avoid=1\n' });
      writeFileSync(join(cwd, 'draft.txt'), 'pure synergy here');
      const batch = await cli([...args, '--out', 'out', 'draft.txt']);
      expect(batch.code).toBe(EXIT_BELOW_BAR);
      expect(batch.stderr).toContain('broken  draft.txt → out/draft.txt: rules still broken: avoid=1');
      expect(batch.stderr).toMatch(/1 with rules still broken\n$/);
      expect(readFileSync(join(cwd, 'out', 'draft.txt'), 'utf8')).toMatch(/\n$/);
      const clean = await cli(args, { stdin: 'nothing banned here' });
      expect(clean).toMatchObject({ code: 0, stderr: '' });
    });

    it('personas list prints each persona\'s id and name', async () => {
      const fresh = await startTestServer();
      try {
        const direct = new PersonaRefine({ apiKey: fresh.key, baseUrl: fresh.url });
        const first = await direct.personas.create({ name: 'First' });
        const second = await direct.personas.create({ name: 'Second "quoted"' });
        const result = await runCli(['personas', 'list'], { cwd, env: { PERSONA_REFINE_API_KEY: fresh.key, PERSONA_REFINE_URL: fresh.url } });
        expect(result).toMatchObject({ code: 0, stdout: `${first.id}  "First"\n${second.id}  "Second \\"quoted\\""\n` });
      } finally {
        await fresh.close();
      }
    });
  });
});
