/** The persona score through the SDK: check's score and severities, refine's X-Persona-Score, a stream's done.score. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine } from '../src/index.js';

describe('the persona score in the SDK', () => {
  let server: TestServer;
  let client: PersonaRefine;
  let personaId: string;

  beforeAll(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    personaId = (await client.personas.create({ name: 'Scored', attributes: { avoid: ['synergy'], maxWords: 3, enforce: { maxWords: 'recommended' } } })).id;
  });
  afterAll(() => server.close());

  it('check answers the score, its parts and each finding with the severity enforce gave its rule', async () => {
    const verdict = await client.check({ personaId, content: 'Pure synergy for 12 teams.', original: 'Synergy for 12 teams and 3 partners.' });
    expect(verdict).toEqual({
      passed: false,
      // rules 100 − 10 (required avoid) − 4 (recommended maxWords) = 86; facts: 1 of 2 numbers kept = 50; (40 × 86 + 20 × 50) / 60
      score: 74,
      scores: { rules: 86, facts: 50 },
      violations: [
        { rule: 'maxWords', severity: 'recommended', message: 'has 5 words; the limit is 3', start: 0, end: 26 },
        { rule: 'avoid', severity: 'required', message: 'uses banned phrase "synergy"', start: 5, end: 12 },
        expect.objectContaining({ rule: 'preserve', severity: 'required', message: expect.stringContaining('"3"') }),
      ],
      warnings: [],
    });
    expect(verdict.personaVersion).toBe(1);
  });

  it('a refine result carries X-Persona-Score as a non-enumerable score', async () => {
    const result = await client.refine({ provider: 'rules', personaId, content: 'Pure synergy.' });
    expect(result.score).toBe(90);
    expect(JSON.stringify(result)).toBe('{"response":"Pure synergy."}');
    expect((await client.refine({ provider: 'rules', personaId, content: 'Hello.' })).score).toBe(100);
  });

  it("a stream's result carries done.score", async () => {
    const stream = client.refineStream({ provider: 'rules', personaId, content: 'Synergy, all day long, every day.' });
    for await (const piece of stream) expect(typeof piece).toBe('string');
    const result = await stream.result;
    expect(result.violations).toEqual({ avoid: 1, maxWords: 1 });
    expect(result.score).toBe(86);
    expect(Object.keys(result)).toEqual(['response']);
  });
});
