/** `persona-refine quality --persona ID`: a persona's quality on live traffic from the shell, against a real server. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine } from '../src/index.js';
import { runCli } from './helpers/cli.js';

const today = () => new Date().toISOString().slice(0, 10);

describe('persona-refine quality', () => {
  let server: TestServer;
  let client: PersonaRefine;
  let cwd: string;
  let personaId: string;
  const cli = (...argv: string[]) => runCli(argv, { cwd, env: { PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url } });

  beforeAll(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    cwd = mkdtempSync(join(tmpdir(), 'persona-refine-quality-'));
    personaId = (await client.personas.create({ name: 'Live voice', attributes: { avoid: ['synergy'], minScore: 95 } })).id;
    const rated = await client.refine({ provider: 'rules', personaId, content: 'We value synergy here.' });
    await client.refine({ provider: 'rules', personaId, content: 'We value teamwork here.' });
    await client.feedback.create({ requestId: rated.requestId!, rating: 'down' });
    await client.personas.update(personaId, { attributes: { avoid: ['synergy'] } });
    await client.refine({ provider: 'rules', personaId, content: 'Plain words.' });
  });
  afterAll(async () => {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('prints a row per day: answers, mean score, under minScore, required findings left, feedback, tokens and findings', async () => {
    expect(await cli('quality', '--persona', personaId)).toEqual({
      code: 0,
      stdout: [
        'day         answers   mean  below min  required left  up  down  tokens in/out  findings',
        `${today()}        3  96.67          1              1   0     1            0/0  avoid=1`,
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('--group-by version prints a row per version over --from..--to', async () => {
    expect(await cli('quality', '--persona', personaId, '--from', today(), '--to', today(), '--group-by', 'version')).toEqual({
      code: 0,
      stdout: [
        'version  answers  mean  below min  required left  up  down  tokens in/out  findings',
        '      1        2    95          1              1   0     1            0/0  avoid=1',
        '      2        1   100          0              0   0     0            0/0  -',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('--json prints the rows as the API sends them', async () => {
    const result = await cli('quality', '--persona', personaId, '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(await client.quality(personaId));
  });

  it('says so on stderr when the range has no answers', async () => {
    expect(await cli('quality', '--persona', personaId, '--from', '2020-01-01', '--to', '2020-01-31')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'no answers or feedback in this range\n',
    });
  });

  it('usage mistakes exit 2 before any request; the server\'s range checks exit 1 with its message', async () => {
    for (const [argv, message] of [
      [['quality'], '--persona ID is required'],
      [['quality', '--persona', personaId, '--from', '1/2/2026'], '--from must be a day as YYYY-MM-DD, got "1/2/2026"'],
      [['quality', '--persona', personaId, '--group-by', 'week'], '--group-by must be day or version, got "week"'],
      [['quality', personaId], 'quality takes only options'],
    ] as const) {
      const result = await cli(...argv);
      expect([result.code, result.stdout, result.stderr.split('\n')[0]]).toEqual([2, '', `persona-refine: ${message}`]);
    }
    const reversed = await cli('quality', '--persona', personaId, '--from', '2026-03-02', '--to', '2026-03-01');
    expect([reversed.code, reversed.stdout]).toEqual([1, '']);
    expect(reversed.stderr).toMatch(/^persona-refine: .*from/);
    expect((await cli('quality', '--persona', 'no-such-persona')).code).toBe(1);
  });

  it('is listed in --help', async () => {
    expect((await cli('--help')).stdout).toContain('quality --persona ID [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--group-by day|version]');
  });
});
