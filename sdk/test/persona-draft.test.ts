/** `client.personas.draft` against a real server and the fake provider: the draft, what `create` does with it, and its errors. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../../test/helpers/refine-fixture.js';
import { PersonaRefine, PersonaRefineError } from '../src/index.js';

const PROVIDER_KEY = 'FAKE-draft-key-not-real-0001';
const SAMPLES = [
  'Hi Sam,\n\nGood news: your export is ready.\n\nCheers,\nThe Acme team',
  'Hi Priya,\n\nWe fixed the sync glitch. Shout if anything looks off.\n\nCheers,\nThe Acme team',
];

describe('client.personas.draft', () => {
  let f: RefineFixture;
  let client: PersonaRefine;

  beforeAll(async () => {
    f = await startRefineFixture();
    client = new PersonaRefine({ apiKey: f.server.key, baseUrl: f.server.url });
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it('answers the draft with its evidence and warnings, and create takes it as it is', async () => {
    f.fake.setBehaviour({
      mode: 'ok',
      structured: {
        name: 'Acme support',
        tone: ['warm', 'upbeat'],
        signOff: 'Cheers,\nThe Acme team',
        avoid: 'not a list',
        evidence: [{ attribute: 'tone', quote: 'Good news: your export is ready.' }],
      },
    });
    const draft = await client.personas.draft({ samples: SAMPLES, provider: 'openai', providerApiKey: PROVIDER_KEY });
    expect(draft).toEqual({
      name: 'Acme support',
      attributes: { tone: ['warm', 'upbeat'], signOff: 'Cheers,\nThe Acme team' },
      evidence: { tone: 'Good news: your export is ready.' },
      warnings: [{ attribute: 'avoid', message: 'dropped: the model gave a string, not a list' }],
    });
    const created = await client.personas.create(draft);
    expect(created).toEqual({ id: expect.any(String), name: 'Acme support', attributes: draft.attributes });
  });

  it('throws the API error: 400 for the rules provider, with no provider call', async () => {
    const error = await client.personas.draft({ samples: SAMPLES, provider: 'rules', providerApiKey: PROVIDER_KEY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersonaRefineError);
    expect(error).toMatchObject({ status: 400, message: expect.stringMatching(/^provider must be a provider that calls a model/) });
    expect(f.fake.requests).toHaveLength(0);
  });

  it('with maxRetries: 0, a failing provider is one 502', async () => {
    f.fake.setBehaviour('serverError');
    const error = await client.personas.draft({ samples: SAMPLES, provider: 'anthropic', providerApiKey: PROVIDER_KEY }, { maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502 });
  });
});
