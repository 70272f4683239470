import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine } from '../src/index.js';
import { runCli } from './helpers/cli.js';

describe('persona-refine personas export | diff | import', () => {
  let server: TestServer;
  let client: PersonaRefine;
  let cwd: string;
  const cli = (...argv: string[]) =>
    runCli(argv, { cwd, env: { PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url } });
  const file = (name: string) => join(cwd, 'personas', name);
  const files = () => readdirSync(join(cwd, 'personas')).sort();

  beforeEach(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    cwd = mkdtempSync(join(tmpdir(), 'persona-refine-cli-'));
  });
  afterEach(async () => {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('export writes one pretty file per persona: <slug>.<id tail>.json holding { id, name, attributes } and a newline', async () => {
    const bot = await client.personas.create({ name: 'Support Bot — Émile', attributes: { tone: 'warm', avoid: ['synergy'] } });
    const plain = await client.personas.create({ name: '!!!' });
    const result = await cli('personas', 'export');
    expect(result).toMatchObject({ code: 0, stdout: 'exported 2 personas to personas\n' });
    const tail = (id: string) => id.replace(/-/g, '').slice(-8);
    expect(files()).toEqual([`persona.${tail(plain.id)}.json`, `support-bot-emile.${tail(bot.id)}.json`].sort());
    expect(readFileSync(file(`support-bot-emile.${tail(bot.id)}.json`), 'utf8')).toBe(
      `{\n  "id": "${bot.id}",\n  "name": "Support Bot — Émile",\n  "attributes": {\n    "tone": "warm",\n    "avoid": [\n      "synergy"\n    ]\n  }\n}\n`,
    );
  });

  it('round-trips: export, edit a file, diff shows the edit, import plans it, --yes applies it, export reproduces the file', async () => {
    const bot = await client.personas.create({ name: 'Bot', attributes: { tone: 'warm', emoji: false } });
    await client.personas.create({ name: 'Other' });
    await cli('personas', 'export');
    const [botFile] = files().filter((name) => name.startsWith('bot.'));
    const edited = readFileSync(file(botFile!), 'utf8').replace('"warm"', '"dry"').replace('"emoji": false', '"emoji": false,\n    "signOff": "— Bot"');
    writeFileSync(file(botFile!), edited);

    const diff = await cli('personas', 'diff', 'personas');
    expect(diff.code).toBe(1);
    expect(diff.stdout).toBe(
      [
        `update     personas/${botFile}  "Bot" (attributes.tone, attributes.signOff)`,
        '    attributes.tone: "warm" → "dry"',
        '    attributes.signOff: (absent) → "— Bot"',
        '0 to create, 1 to update, 1 unchanged',
        '',
      ].join('\n'),
    );

    const plan = await cli('personas', 'import', 'personas');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^update {5}personas\/bot\..*\nunchanged {2}personas\/other\..*\n0 to create, 1 to update, 1 unchanged\nrerun with --yes to apply\n$/);
    expect((await client.personas.get(bot.id)).attributes).toEqual({ tone: 'warm', emoji: false });

    const applied = await cli('personas', 'import', 'personas', '--yes');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`updated    personas/${botFile}`);
    expect(applied.stdout).toContain('applied 1 of 1');
    expect(await client.personas.get(bot.id)).toEqual({ id: bot.id, name: 'Bot', attributes: { tone: 'dry', emoji: false, signOff: '— Bot' } });

    expect((await cli('personas', 'diff', 'personas')).code).toBe(0);
    await cli('personas', 'export');
    expect(readFileSync(file(botFile!), 'utf8')).toBe(edited);
  });

  it('a file without an id creates its persona, and later matches it by name', async () => {
    await cli('personas', 'export');
    writeFileSync(file('new.json'), JSON.stringify({ name: 'Newcomer', attributes: { tone: 'curious' } }));
    const created = await cli('personas', 'import', 'personas/new.json', '--yes');
    expect(created.stdout).toMatch(/^create {5}personas\/new\.json {2}"Newcomer"\n1 to create, 0 to update, 0 unchanged\ncreated {4}personas\/new\.json → \S+\napplied 1 of 1\n$/);
    expect(await client.personas.list()).toEqual([{ id: expect.any(String), name: 'Newcomer', attributes: { tone: 'curious' } }]);
    const again = await cli('personas', 'import', 'personas/new.json', '--yes');
    expect(again).toMatchObject({ code: 0, stdout: 'unchanged  personas/new.json\n0 to create, 0 to update, 1 unchanged\n' });
  });

  it('applies nothing when any file is wrong, and says why for each', async () => {
    await client.personas.create({ name: 'Twin' });
    await client.personas.create({ name: 'Twin' });
    await cli('personas', 'export');
    writeFileSync(file('a-new.json'), '{"name": "Would be created"}');
    writeFileSync(file('b-gone.json'), '{"id": "0190aaaa-0000-7000-8000-000000000000", "name": "Gone"}');
    writeFileSync(file('c-twin.json'), '{"name": "Twin"}');
    writeFileSync(file('d-broken.json'), '{"name": ');
    writeFileSync(file('e-extra.json'), '{"name": "x", "colour": "red"}');
    const result = await cli('personas', 'import', 'personas', '--yes');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/error {6}personas\/b-gone\.json: id 0190aaaa-0000-7000-8000-000000000000 is not on the server/);
    expect(result.stdout).toMatch(/error {6}personas\/c-twin\.json: 2 personas are named "Twin"; add the "id" of the one you mean/);
    expect(result.stdout).toMatch(/error {6}personas\/d-broken\.json: not valid JSON/);
    expect(result.stdout).toMatch(/error {6}personas\/e-extra\.json: unknown field "colour"/);
    expect(result.stderr).toBe('nothing applied: fix the errors above first\n');
    expect(await client.personas.list()).toHaveLength(2);
  });

  it('flags two files describing the same persona', async () => {
    const persona = await client.personas.create({ name: 'Solo' });
    await cli('personas', 'export');
    writeFileSync(file('copy.json'), JSON.stringify({ id: persona.id, name: 'Solo 2' }));
    const result = await cli('personas', 'diff', 'personas');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/error {6}personas\/solo\.\w+\.json: describes the same persona \(.+\) as personas\/copy\.json/);
  });

  it('export writes a persona back to the file that already describes it, even after a rename', async () => {
    const persona = await client.personas.create({ name: 'Old name' });
    await cli('personas', 'export');
    const [original] = files();
    await client.personas.update(persona.id, { name: 'New name' });
    await cli('personas', 'export');
    expect(files()).toEqual([original]);
    expect(JSON.parse(readFileSync(file(original!), 'utf8'))).toEqual({ id: persona.id, name: 'New name', attributes: {} });
  });

  it('export fills in the id of a hand-written file once import created its persona', async () => {
    await cli('personas', 'export');
    writeFileSync(file('greeter.json'), '{ "name": "Greeter" }\n');
    await cli('personas', 'import', 'personas', '--yes');
    const result = await cli('personas', 'export');
    expect(result.stdout).toBe('exported 1 persona to personas\n');
    expect(files()).toEqual(['greeter.json']);
    const [created] = await client.personas.list();
    expect(readFileSync(file('greeter.json'), 'utf8')).toBe(`{\n  "id": "${created!.id}",\n  "name": "Greeter",\n  "attributes": {}\n}\n`);
  });

  it('export leaves files it cannot match alone and says so', async () => {
    await cli('personas', 'export');
    writeFileSync(file('stale.json'), '{"id": "0190aaaa-0000-7000-8000-000000000000", "name": "Gone"}');
    const result = await cli('personas', 'export');
    expect(result.stdout).toMatch(/^note: personas\/stale\.json left as is: id 0190aaaa-0000-7000-8000-000000000000 is not on the server/);
    expect(files()).toEqual(['stale.json']);
  });

  it('samples travel with their persona: exported without ids, an unchanged one keeps its id, a changed one is replaced', async () => {
    const bot = await client.personas.create({ name: 'Bot', attributes: { tone: 'warm' } });
    const stored = await client.personas.samples.replace(bot.id, [
      { name: 'welcome', content: 'Dear customers, welcome.', expect: { contains: ['members'] } },
      { content: 'Your order ships today.' },
    ]);
    await cli('personas', 'export');
    const [botFile] = files();
    const exported = readFileSync(file(botFile!), 'utf8');
    expect(JSON.parse(exported)).toEqual({
      id: bot.id,
      name: 'Bot',
      attributes: { tone: 'warm' },
      samples: [{ name: 'welcome', content: 'Dear customers, welcome.', expect: { contains: ['members'] } }, { content: 'Your order ships today.' }],
    });
    expect(Object.keys(JSON.parse(exported))).toEqual(['id', 'name', 'attributes', 'samples']);
    expect(await cli('personas', 'diff', 'personas')).toMatchObject({ code: 0, stdout: '0 to create, 0 to update, 1 unchanged\n' });

    writeFileSync(file(botFile!), exported.replace('Your order ships today.', 'Your order ships tomorrow.'));
    const diff = await cli('personas', 'diff', 'personas');
    expect(diff).toMatchObject({
      code: 1,
      stdout: [
        `update     personas/${botFile}  "Bot" (samples: 1 added, 1 removed)`,
        '    samples: - {"content":"Your order ships today."}',
        '    samples: + {"content":"Your order ships tomorrow."}',
        '0 to create, 1 to update, 0 unchanged',
        '',
      ].join('\n'),
    });
    const plan = await cli('personas', 'import', 'personas');
    expect(plan.stdout).toBe(`update     personas/${botFile}  "Bot" (samples: 1 added, 1 removed)\n0 to create, 1 to update, 0 unchanged\nrerun with --yes to apply\n`);
    expect((await client.personas.samples.get(bot.id)).samples).toEqual(stored.samples);

    const applied = await cli('personas', 'import', 'personas', '--yes');
    expect(applied).toMatchObject({ code: 0, stdout: expect.stringContaining(`updated    personas/${botFile} → 2 samples\napplied 1 of 1\n`) });
    const after = await client.personas.samples.get(bot.id);
    expect(after.samples[0]).toEqual(stored.samples[0]);
    expect(after.samples[1]).toEqual({ id: expect.any(String), content: 'Your order ships tomorrow.' });
    expect(after.samples[1]!.id).not.toBe(stored.samples[1]!.id);
    // The persona itself was not touched: no new version.
    expect((await client.personas.get(bot.id)).etag).toBe(bot.etag);

    await cli('personas', 'export');
    expect(readFileSync(file(botFile!), 'utf8')).toBe(exported.replace('Your order ships today.', 'Your order ships tomorrow.'));
  });

  it('a file without samples leaves the persona\'s samples alone; "samples": [] removes them', async () => {
    const bot = await client.personas.create({ name: 'Bot', attributes: { tone: 'warm' } });
    const stored = await client.personas.samples.replace(bot.id, [{ content: 'Keep me.' }]);
    writeFileSync(join(cwd, 'bot.json'), JSON.stringify({ id: bot.id, name: 'Bot', attributes: { tone: 'dry' } }));
    const applied = await cli('personas', 'import', 'bot.json', '--yes');
    expect(applied.stdout).toBe('update     bot.json  "Bot" (attributes.tone)\n0 to create, 1 to update, 0 unchanged\nupdated    bot.json → version 2\napplied 1 of 1\n');
    const kept = await client.personas.samples.get(bot.id);
    expect(kept.samples).toEqual(stored.samples);
    expect(kept.etag).toBe(stored.etag);

    writeFileSync(join(cwd, 'bot.json'), JSON.stringify({ id: bot.id, name: 'Bot', attributes: { tone: 'dry' }, samples: [] }));
    const emptied = await cli('personas', 'import', 'bot.json', '--yes');
    expect(emptied.stdout).toBe('update     bot.json  "Bot" (samples: 1 removed)\n0 to create, 1 to update, 0 unchanged\nupdated    bot.json → 0 samples\napplied 1 of 1\n');
    expect((await client.personas.samples.get(bot.id)).samples).toEqual([]);
  });

  it('a new persona\'s file creates it with its samples; a sample with an id or an unknown field is an error', async () => {
    mkdirSync(join(cwd, 'personas'));
    writeFileSync(file('new.json'), JSON.stringify({ name: 'Newcomer', samples: [{ name: 'hi', content: 'Hello there.' }] }));
    const created = await cli('personas', 'import', 'personas', '--yes');
    expect(created.stdout).toMatch(/^create {5}personas\/new\.json {2}"Newcomer" \(1 sample\)\n1 to create, 0 to update, 0 unchanged\ncreated {4}personas\/new\.json → \S+, 1 sample\napplied 1 of 1\n$/);
    const [persona] = await client.personas.list();
    expect((await client.personas.samples.get(persona!.id)).samples).toEqual([{ id: expect.any(String), name: 'hi', content: 'Hello there.' }]);

    writeFileSync(file('new.json'), JSON.stringify({ name: 'Newcomer', samples: [{ id: 'x', content: 'Hello there.' }] }));
    writeFileSync(file('other.json'), JSON.stringify({ name: 'Other', samples: [{ content: 'Hi', expect: { contains: 'Hi' } }] }));
    const refused = await cli('personas', 'import', 'personas', '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('error      personas/new.json: "samples"[0] has an "id": sample ids are the server\'s (an unchanged sample keeps its own); leave it out\n');
    expect(refused.stdout).toContain('error      personas/other.json: "samples"[0]."expect" lists must be lists of strings\n');
  });

  it.each([
    [['personas', 'import'], /personas import takes one DIR or FILE, got 0/],
    [['personas', 'frobnicate'], /unknown personas command "frobnicate"/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['personas', 'export', '--bogus'], /Unknown option '--bogus'/],
  ])('exits 2 on a usage error: %j', async (argv, message) => {
    const result = await cli(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Run persona-refine --help for usage.');
  });

  it('exits 2 without PERSONA_REFINE_API_KEY, and 1 naming the request when the server refuses the key', async () => {
    const missing = await runCli(['personas', 'export'], { cwd, env: {} });
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('set PERSONA_REFINE_API_KEY') });
    const wrong = await runCli(['personas', 'export'], { cwd, env: { PERSONA_REFINE_API_KEY: 'prk_wrong', PERSONA_REFINE_URL: server.url } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^persona-refine: .+ \(HTTP 401, request id .+\)\n$/);
  });

  it('--help prints the usage on stdout', async () => {
    const result = await cli('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('personas import DIR|FILE [--yes]');
  });
});
