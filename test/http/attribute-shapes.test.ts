import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';

const LONG_TEXT = 'one two three four five six seven eight nine ten eleven twelve.';

describe('well-known attribute shapes', () => {
  let f: RefineFixture;
  const create = (attributes: unknown) => f.server.request('/v1/personas', { method: 'POST', json: { name: 'Shapes', attributes } });
  const countPersonas = async () => (await (await f.server.request('/v1/personas')).json()).length;

  beforeAll(async () => {
    f = await startRefineFixture();
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it('refuses "maxWords": "120" at write time with a 400 naming the key and its shape, and writes nothing', async () => {
    const before = await countPersonas();
    const res = await create({ tone: 'warm', maxWords: '120' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 400,
      message: 'attributes.maxWords must be a whole number of at least 1 (for example 120) or null',
    });
    expect(await countPersonas()).toBe(before);

    const { id } = await (await create({ maxWords: 120 })).json();
    const patch = await f.server.request(`/v1/personas/${id}`, { method: 'PATCH', json: { attributes: { maxWords: '120' } } });
    expect(patch.status).toBe(400);
    expect((await (await f.server.request(`/v1/personas/${id}`)).json()).attributes).toEqual({ maxWords: 120 });
  });

  it.each([
    [{ tone: { primary: 'warm' } }, 'attributes.tone must be a string or a list of strings (for example ["warm","direct"]) or null'],
    [{ avoid: ['ok', 3] }, 'attributes.avoid must be a string or a list of at most 200 strings, each at most 100 characters'],
    [{ vocabulary: ['members'] }, 'attributes.vocabulary must be an object mapping each term to its replacement'],
    [{ maxSentences: 0 }, 'attributes.maxSentences must be a whole number of at least 1'],
    [{ maxWords: 2.5 }, 'attributes.maxWords must be a whole number of at least 1'],
    [{ emoji: 3 }, 'attributes.emoji must be true, false, "none" or a phrase'],
    [{ examples: [{ before: 'a' }] }, 'attributes.examples must be a list of { "before": "…", "after": "…" } objects'],
    [{ enforce: { maxword: false } }, 'attributes.enforce must be true, false, or an object of rule ids (vocabulary, casing, avoid'],
    [{ enforce: 'no' }, 'attributes.enforce must be true, false'],
  ])('refuses %j with a message that names the key and its shapes', async (attributes, message) => {
    const res = await create(attributes);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['error', 'message']);
    expect(body.message).toContain(message);
  });

  it('accepts null and empty values and any value under other keys, and returns them verbatim', async () => {
    const attributes = { tone: null, avoid: [], maxWords: null, signOff: '', toneDetails: { primary: 'warm' }, maxwords: '120', enforce: { avoid: false } };
    const res = await create(attributes);
    expect(res.status).toBe(201);
    expect(await res.text()).toContain(`"attributes":${JSON.stringify(attributes)}`);
  });

  describe('a persona stored before shapes were checked', () => {
    let personaId: string;

    beforeAll(async () => {
      ({ id: personaId } = await (await create({ tone: 'warm', maxWords: 5 })).json());
      // Attributes are stored verbatim, so older rows can hold what writes now refuse.
      await f.server.storage.db
        .updateTable('personas')
        .set({ attributes: JSON.stringify({ tone: 'warm', maxWords: '120' }) })
        .where('id', '=', personaId)
        .execute();
    });

    it('is still returned verbatim', async () => {
      expect(await (await f.server.request(`/v1/personas/${personaId}`)).text()).toContain('"attributes":{"tone":"warm","maxWords":"120"}');
    });

    it('POST /v1/check warns that maxWords is ignored, and does not check it', async () => {
      const res = await f.server.request('/v1/check', { method: 'POST', json: { personaId, content: LONG_TEXT } });
      expect(await res.json()).toEqual({
        passed: true,
        score: 100,
        scores: { rules: 100, facts: 100 },
        violations: [],
        warnings: [
          {
            attribute: 'maxWords',
            message: 'attributes.maxWords must be a whole number of at least 1 (for example 120) or null; it is ignored until fixed',
          },
        ],
      });
    });

    it('refine neither asks the model for the limit nor checks it', async () => {
      const res = await f.server.request('/v1/refine', {
        method: 'POST',
        json: { provider: 'anthropic', providerApiKey: callerKey('anthropic'), personaId, content: LONG_TEXT },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-persona-violations')).toBeNull();
      expect(f.fake.requests).toHaveLength(1);
      const { system } = f.fake.requests[0]!.body as { system: string };
      expect(system).toContain('Tone: warm');
      expect(system).not.toMatch(/120|maxWords|at most/);
    });
  });
});
