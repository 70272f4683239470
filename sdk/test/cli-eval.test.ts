/** Evaluations through the SDK and `persona-refine eval`, against a real server with the offline rules provider. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { EXIT_BELOW_BAR } from '../src/cli/exit-codes.js';
import { type EvalEvent, PersonaRefine, PersonaRefineError } from '../src/index.js';
import { runCli } from './helpers/cli.js';

describe('evaluations in the SDK and the CLI', () => {
  let server: TestServer;
  let client: PersonaRefine;
  let personaId: string;
  const cli = (...argv: string[]) => runCli(argv, { cwd: process.cwd(), env: { PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url } });
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (e: unknown) => e as PersonaRefineError);
  const finished = async (evalId: string) => {
    const events: EvalEvent[] = [];
    for await (const event of client.evals.events(personaId, evalId)) events.push(event);
    return events;
  };

  beforeAll(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    // Version 1 says "members"; version 2 (below) forgets it, which the first sample expects.
    personaId = (await client.personas.create({ name: 'Evaluated', attributes: { vocabulary: { customers: 'members' }, avoid: ['synergy'] } })).id;
  });
  afterAll(() => server.close());

  it('samples: get with their own ETag, replace whole keeping the ids of unchanged samples, If-Match', async () => {
    const empty = await client.personas.samples.get(personaId);
    expect(empty).toEqual({ samples: [] });
    expect(empty.etag).toBe('"0"');
    const stored = await client.personas.samples.replace(
      personaId,
      [
        { name: 'welcome', content: 'Dear customers, welcome.', expect: { contains: ['members'] } },
        { name: 'synergy', content: 'Pure synergy for our customers.' },
        { name: 'hello', content: 'Hello there.' },
      ],
      { ifMatch: empty.etag },
    );
    expect(stored.samples.map((sample) => sample.name)).toEqual(['welcome', 'synergy', 'hello']);
    expect(stored.etag).toBe('"1"');
    const again = await client.personas.samples.replace(personaId, stored.samples, { ifMatch: stored.etag });
    expect(again.samples.map((sample) => sample.id)).toEqual(stored.samples.map((sample) => sample.id));
    expect((await failure(client.personas.samples.replace(personaId, [], { ifMatch: stored.etag }))).status).toBe(412);
  });

  it('eval runs, shows each sample, prints the table and the summary; exit 0 when the bars are met', async () => {
    const result = await cli('eval', '--persona', personaId, '--provider', 'rules', '--min-score', '90', '--min-pass-rate', '0.6');
    expect(result.stderr).toMatch(/^evaluation (\S+): version 1 of persona \S+, 3 samples, rules\n/);
    // Not a terminal: one line per sample, in the order they finished (concurrently), then nothing else.
    expect(result.stderr.split('\n').slice(1, -1).sort()).toEqual(['passed   hello', 'passed   welcome', 'short    synergy']);
    expect(result.stdout).toBe(
      [
        'sample   score  rules  facts  voice  passed  findings',
        'welcome    100    100    100      -  yes     -',
        'synergy     90     90    100      -  no      avoid=1 required',
        'hello      100    100    100      -  yes     -',
        'status completed; 3 of 3 samples',
        'score 96.7 (bar 90: met)',
        'pass rate 0.6667 (bar 0.6: met)',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
  });

  it(`exits ${EXIT_BELOW_BAR} under the pass-rate bar, and on a regression against the baseline run`, async () => {
    const below = await cli('eval', '--persona', personaId, '--provider', 'rules', '--min-pass-rate', '0.9');
    expect(below.code).toBe(EXIT_BELOW_BAR);
    expect(below.stdout).toContain('pass rate 0.6667 (bar 0.9: BELOW)\n');
    const baseline = /^evaluation (\S+):/.exec(below.stderr)![1]!;

    await client.personas.update(personaId, { attributes: { avoid: ['synergy'] } });
    const regressed = await cli('eval', '--persona', personaId, '--provider', 'rules', '--version', '2', '--baseline', baseline);
    expect(regressed.code).toBe(EXIT_BELOW_BAR);
    expect(regressed.stdout.split('\n').slice(1)).toEqual([
      'welcome    100    100    100      -  no      -',
      'synergy     90     90    100      -  no      avoid=1 required',
      'hello      100    100    100      -  yes     -',
      'welcome: expect not met: missing "members"',
      'status completed; 3 of 3 samples',
      'score 96.7',
      'pass rate 0.3333',
      `against ${baseline}: 1 regression`,
      '  welcome: 100 passed → 100 not passed',
      '',
    ]);
    // Against itself: no regression, exit 0.
    const same = await cli('eval', '--persona', personaId, '--provider', 'rules', '--version', '1', '--baseline', baseline);
    expect(same.stdout).toContain(`against ${baseline}: no regression\n`);
    expect(same.code).toBe(0);
  });

  it('the SDK follows a run: events replayed after its end, get with results, list newest first, compare, cancel of an ended run is a 409', async () => {
    const run = await client.evals.start(personaId, { provider: 'rules', version: 1, concurrency: 1 });
    expect(run).toMatchObject({ personaId, version: 1, status: 'queued', progress: { done: 0, total: 3 } });
    const live = await finished(run.id);
    expect(live.map((event) => event.event).filter((name) => name !== 'progress')).toEqual(['result', 'result', 'result', 'done']);
    const replayed = await finished(run.id);
    expect(replayed.map((event) => event.event)).toEqual(['result', 'result', 'result', 'progress', 'done']);
    expect(replayed.at(-1)).toEqual({ event: 'done', data: { status: 'completed', summary: expect.objectContaining({ score: 96.7, passRate: 0.6667 }) } });

    const full = await client.evals.get(personaId, run.id);
    expect(full.results.map((result) => [result.response, result.score, result.passed])).toEqual([
      ['Dear members, welcome.', 100, true],
      ['Pure synergy for our members.', 90, false],
      ['Hello there.', 100, true],
    ]);
    const page = await client.evals.list(personaId, { limit: 2 });
    expect(page.runs[0]!.id).toBe(run.id);
    expect(page.nextCursor).toEqual(expect.any(String));
    expect((await client.evals.list(personaId, { cursor: page.nextCursor })).runs.map((listed) => listed.id)).not.toContain(run.id);

    const head = await client.evals.start(personaId, { provider: 'rules', version: 2 });
    await finished(head.id);
    const comparison = await client.evals.compare(personaId, run.id, head.id);
    expect(comparison.regressions).toEqual([{ sampleId: full.results[0]!.sampleId, base: { score: 100, passed: true }, head: { score: 100, passed: false }, delta: 0 }]);
    expect(comparison.samples).toHaveLength(3);
    expect((await failure(client.evals.cancel(personaId, run.id))).status).toBe(409);
  });

  it('label policies gate a move on an evaluation of the target version, never on a rules run', async () => {
    await client.personas.labels.setPolicy(personaId, 'staging', { minScore: 95, minPassRate: 0.6 });
    expect(await client.personas.labels.getPolicy(personaId, 'staging')).toMatchObject({ label: 'staging', minScore: 95, minPassRate: 0.6, maxAgeDays: null });
    // Version 2's runs pass a third of the samples: refused, naming the bar.
    const refused = await failure(client.personas.labels.set(personaId, 'staging', 2));
    expect(refused.status).toBe(409);
    expect(refused.message).toMatch(/^label "staging" needs an evaluation of version 2 with score ≥ 95 and pass rate ≥ 0\.6/);
    // Version 1's runs met both bars, but were made with `rules`, which measures no model: no gate is met by them.
    const rulesOnly = await failure(client.personas.labels.set(personaId, 'staging', 1));
    expect(rulesOnly.status).toBe(409);
    expect(rulesOnly.message).toMatch(/was made with provider "rules", which calls no model, and meets no gate$/);
    await client.personas.labels.deletePolicy(personaId, 'staging');
    expect(await client.personas.labels.set(personaId, 'staging', 1)).toEqual({ staging: 1 });
    expect((await client.personas.labels.getPolicy(personaId, 'staging')).isDefault).toBe(true);
  });

  it('usage errors exit 2 before anything starts', async () => {
    expect(await cli('eval', '--provider', 'rules')).toMatchObject({ code: 2, stderr: expect.stringContaining('--persona ID is required') });
    expect(await cli('eval', '--persona', personaId, '--provider', 'rules', '--version', '1', '--label', 'production')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--version and --label cannot be used together'),
    });
    expect(await cli('eval', '--persona', personaId, '--provider', 'rules', '--min-pass-rate', '90')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--min-pass-rate must be a number from 0 to 1 (e.g. 0.9), got "90"'),
    });
  });
});
