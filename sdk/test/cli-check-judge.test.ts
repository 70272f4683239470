/** `persona-refine check` with a judge, and a judged refine's verdict in the SDK: the fake provider rates every attribute 4 of 5. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../../test/helpers/refine-fixture.js';
import { EXIT_BELOW_BAR } from '../src/cli/exit-codes.js';
import { PersonaRefine } from '../src/index.js';
import { runCli } from './helpers/cli.js';

const JUDGE_KEY = 'FAKE-judge-key-not-real-0001';

describe('the judge through the CLI and the SDK', () => {
  let f: RefineFixture;
  let client: PersonaRefine;
  let cwd: string;
  let personaId: string;
  const cli = (argv: string[], env: Record<string, string> = { JUDGE_KEY }) =>
    runCli(argv, { cwd, env: { PERSONA_REFINE_API_KEY: f.server.key, PERSONA_REFINE_URL: f.server.url, ...env } });

  beforeAll(async () => {
    f = await startRefineFixture();
    client = new PersonaRefine({ apiKey: f.server.key, baseUrl: f.server.url });
    personaId = (await client.personas.create({ name: 'Judged', attributes: { tone: 'warm', avoid: ['synergy'] } })).id;
    cwd = mkdtempSync(join(tmpdir(), 'persona-refine-judge-'));
    writeFileSync(join(cwd, 'clean.md'), 'Hello there, welcome aboard.\n');
  });
  afterAll(async () => {
    await f.close();
    rmSync(cwd, { recursive: true, force: true });
  });
  beforeEach(() => f.fake.reset());

  it('check --judge-provider rates the voice with the key from --judge-key-env, and the voice counts against the bar', async () => {
    const result = await cli(['check', '--persona', personaId, '--min-score', '90', '--judge-provider', 'openai', '--judge-key-env', 'JUDGE_KEY', 'clean.md']);
    // rules 100 and voice 75 (every rating 4), weighted 40:40 → 88 (docs/voice-score.md, "The formula").
    expect(result).toEqual({
      code: EXIT_BELOW_BAR,
      stdout: ['file      score  rules  facts  voice  passed  findings', 'clean.md     88    100    100     75  no      -', ''].join('\n'),
      stderr: '1 file: 0 passed, 1 did not pass (--min-score 90), 0 could not be checked\n',
    });
    expect(f.fake.requests).toHaveLength(1);
    expect(f.fake.requests[0]!.headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
    expect(`${result.stdout}${result.stderr}`).not.toContain(JUDGE_KEY.slice(3, 12));
  });

  it('the judge key is never an argument: a missing variable or flag is a usage error naming the variable, not a value', async () => {
    const unset = await cli(['check', '--persona', personaId, '--judge-provider', 'openai', '--judge-key-env', 'NOPE', 'clean.md'], {});
    expect(unset).toMatchObject({ code: 2, stderr: expect.stringContaining('set NOPE to your key for the judge\'s provider "openai"') });
    const noVariable = await cli(['check', '--persona', personaId, '--judge-provider', 'openai', 'clean.md']);
    expect(noVariable).toMatchObject({ code: 2, stderr: expect.stringContaining('--judge-provider needs --judge-key-env VAR') });
    const pasted = await cli(['check', '--persona', personaId, '--judge-provider', 'openai', '--judge-key-env', 'JUDGE_KEY', 'clean.md'], { JUDGE_KEY: `${JUDGE_KEY}\n` });
    expect(pasted.code).toBe(2);
    expect(pasted.stderr).toContain('JUDGE_KEY contains a control character');
    expect(pasted.stderr).not.toContain(JUDGE_KEY.slice(3, 12));
    expect(f.fake.requests).toHaveLength(0);
  });

  it('a judged refine exposes the ratings (X-Persona-Ratings) and the score with the voice', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hello there, friend.' });
    const result = await client.refine({ provider: 'openai', providerApiKey: JUDGE_KEY, personaId, content: 'Hello there.', judge: true });
    expect(result).toEqual({ response: 'Hello there, friend.' });
    expect(result.ratings).toEqual([{ attribute: 'tone', rating: 4 }]);
    expect(result.judgeError).toBeUndefined();
    expect(result.score).toBe(88);
    const plain = await client.refine({ provider: 'rules', personaId, content: 'Hello there.' });
    expect(plain.ratings).toBeUndefined();
  });

  it('a judged stream exposes done.judge (each rating with its reason) beside the score; a failed judge as its error; unjudged, none', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hello there, friend.' });
    const input = { provider: 'openai', providerApiKey: JUDGE_KEY, model: 'gpt-judged', personaId, content: 'Hello there.' };
    const stream = client.refineStream({ ...input, judge: true });
    for await (const _piece of stream);
    const result = await stream.result;
    expect(result.judge).toEqual({ provider: 'openai', model: 'gpt-judged', ratings: [{ attribute: 'tone', rating: 4, reason: 'Matches tone.' }] });
    expect(result.score).toBe(88);
    // Not enumerable, as every other field the service adds: the result still serializes as { response }.
    expect(JSON.stringify(result)).toBe(JSON.stringify({ response: 'Hello there, friend.' }));
    expect(f.fake.requests.map((request) => request.stream)).toEqual([true, false]);

    f.fake.reset();
    f.fake.enqueue({ mode: 'ok', reply: 'Hello there, friend.' }, { mode: 'ok', structured: 'no' }, { mode: 'ok', structured: 'still no' });
    const failed = client.refineStream({ ...input, judge: true });
    for await (const _piece of failed);
    expect((await failed.result).judge).toEqual({ error: 'provider "openai" gave no usable ratings in 2 answers: the last one is not JSON' });
    expect((await failed.result).score).toBe(100);

    const plain = client.refineStream(input);
    for await (const _piece of plain);
    expect((await plain.result).judge).toBeUndefined();
  });

  it('a persona with nothing to rate: no judge call, and the warning says so in the CLI, on a refine (judgeWarning) and in a stream\'s judge', async () => {
    const bare = (await client.personas.create({ name: 'Bare', attributes: { avoid: ['synergy'] } })).id;
    const warning =
      'persona "Bare" has no descriptive attributes (description, tone, formality, audience, personality, readingLevel, language, locale, length, instructions, or a key of its own) to rate; no judge call was made';
    const checked = await cli(['check', '--persona', bare, '--judge-provider', 'openai', '--judge-key-env', 'JUDGE_KEY', 'clean.md']);
    expect(checked.code).toBe(0);
    expect(checked.stderr).toBe(`note: the voice was not judged: ${warning}\n1 file: 1 passed, 0 did not pass, 0 could not be checked\n`);
    f.fake.setBehaviour({ mode: 'ok', reply: 'Hello there, friend.' });
    const refined = await client.refine({ provider: 'openai', providerApiKey: JUDGE_KEY, personaId: bare, content: 'Hello there.', judge: true });
    expect([refined.judgeWarning, refined.ratings, refined.judgeError]).toEqual([warning, undefined, undefined]);
    const stream = client.refineStream({ provider: 'openai', providerApiKey: JUDGE_KEY, personaId: bare, content: 'Hello there.', judge: true });
    for await (const _piece of stream);
    expect((await stream.result).judge).toMatchObject({ ratings: [], warning });
    expect(f.fake.requests).toHaveLength(2);
  });
});
