/** `persona-refine check FILE… --persona ID`: the score gate for docs and templates, against a real server. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { EXIT_BELOW_BAR } from '../src/cli/exit-codes.js';
import { PersonaRefine } from '../src/index.js';
import { runCli } from './helpers/cli.js';

describe('persona-refine check', () => {
  let server: TestServer;
  let client: PersonaRefine;
  let cwd: string;
  let personaId: string;
  const cli = (...argv: string[]) => runCli(argv, { cwd, env: { PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url } });

  beforeAll(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    // A required finding costs 10 points of the rules part, a recommended one 4 (docs/voice-score.md, "The formula").
    personaId = (await client.personas.create({ name: 'Docs voice', attributes: { avoid: ['synergy'], maxWords: 8, enforce: { maxWords: 'recommended' } } })).id;
    cwd = mkdtempSync(join(tmpdir(), 'persona-refine-check-'));
    writeFileSync(join(cwd, 'clean.md'), 'Hello there, welcome aboard.\n');
    writeFileSync(join(cwd, 'long.md'), 'One two three four five six seven eight nine ten.\n');
    writeFileSync(join(cwd, 'synergy.md'), 'Synergy, synergy: we sell synergy to every team in the land.\n');
  });
  afterAll(async () => {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('prints one row per file and passes when every file passes', async () => {
    const result = await cli('check', '--persona', personaId, 'clean.md', 'long.md');
    expect(result).toEqual({
      code: 0,
      stdout: [
        'file      score  rules  facts  voice  passed  findings',
        'clean.md    100    100    100      -  yes     -',
        'long.md      96     96    100      -  yes     maxWords=1 recommended',
        '',
      ].join('\n'),
      stderr: '2 files: 2 passed, 0 did not pass, 0 could not be checked\n',
    });
  });

  it(`fails the gate with exit ${EXIT_BELOW_BAR} when a file has a required finding, and names it in the table`, async () => {
    const result = await cli('check', '--persona', personaId, 'clean.md', 'synergy.md', 'long.md');
    expect(result).toEqual({
      code: EXIT_BELOW_BAR,
      stdout: [
        'file        score  rules  facts  voice  passed  findings',
        'clean.md      100    100    100      -  yes     -',
        'synergy.md     66     66    100      -  no      avoid=3 required, maxWords=1 recommended',
        'long.md        96     96    100      -  yes     maxWords=1 recommended',
        '',
      ].join('\n'),
      stderr: '3 files: 2 passed, 1 did not pass, 0 could not be checked\n',
    });
  });

  it('--min-score N fails a file that only has recommended findings but scores under N', async () => {
    const result = await cli('check', '--persona', personaId, '--min-score', '97', 'clean.md', 'long.md');
    expect(result.code).toBe(EXIT_BELOW_BAR);
    expect(result.stdout.split('\n')[2]).toBe('long.md      96     96    100      -  no      maxWords=1 recommended');
    expect(result.stderr).toBe('2 files: 1 passed, 1 did not pass (--min-score 97), 0 could not be checked\n');
    expect((await cli('check', '--persona', personaId, '--min-score', '96', 'long.md')).code).toBe(0);
  });

  it("the persona's own minScore is the bar without --min-score", async () => {
    const strict = await client.personas.create({ name: 'Strict docs', attributes: { maxWords: 8, enforce: { maxWords: 'recommended' }, minScore: 100 } });
    const result = await cli('check', '--persona', strict.id, 'long.md');
    expect(result.code).toBe(EXIT_BELOW_BAR);
    expect(result.stdout).toContain('long.md     96     96    100      -  no      maxWords=1 recommended');
  });

  it('a file that cannot be checked is an error row and exit 1, whatever the other files scored', async () => {
    const result = await cli('check', '--persona', personaId, 'synergy.md', 'missing.md');
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[2]).toMatch(/^missing\.md {6}- {6}- {6}- {6}- {2}error {3}ENOENT: no such file or directory, open '.*missing\.md'$/);
    expect(result.stderr).toBe('2 files: 0 passed, 1 did not pass, 1 could not be checked\n');
    const unknown = await cli('check', '--persona', 'no-such-persona', 'clean.md');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/^file .*\nclean\.md .* error +"no-such-persona" is not a persona id \(HTTP 404, request id \S+\)\n$/);
  });

  it('usage errors exit 2 before any request', async () => {
    expect(await cli('check', 'clean.md')).toMatchObject({ code: 2, stderr: expect.stringContaining('--persona ID is required') });
    expect(await cli('check', '--persona', personaId)).toMatchObject({ code: 2, stderr: expect.stringContaining('check needs at least one FILE') });
    expect(await cli('check', '--persona', personaId, '--min-score', '101', 'clean.md')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--min-score must be a whole number from 0 to 100, got "101"'),
    });
  });
});
