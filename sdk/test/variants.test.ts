/** A persona's variants through the SDK against a real server: the variant named on each call, the one used read back, and the merged attributes. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, type RefineFixture, startRefineFixture } from '../../test/helpers/refine-fixture.js';
import { PersonaRefine, PersonaRefineError } from '../src/index.js';

const PERSONA = {
  name: 'Acme Support',
  attributes: { vocabulary: { customers: 'members' }, avoid: ['synergy'], variants: { 'support-chat': { vocabulary: { customers: 'folks' } } } },
};

describe('variants through the SDK', () => {
  let f: RefineFixture;
  let client: PersonaRefine;
  let personaId: string;
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (e: unknown) => e as PersonaRefineError);

  beforeAll(async () => {
    f = await startRefineFixture();
    client = new PersonaRefine({ apiKey: f.server.key, baseUrl: f.server.url, maxRetries: 0 });
    personaId = (await client.personas.create(PERSONA)).id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it('refine, its stream and check name the variant used, not enumerable; without one it is undefined', async () => {
    const input = { provider: 'rules', personaId, content: 'Hi customers.' } as const;
    const refined = await client.refine({ ...input, variant: 'support-chat' });
    expect(refined).toEqual({ response: 'Hi folks.' });
    expect({ personaVersion: refined.personaVersion, personaVariant: refined.personaVariant }).toEqual({ personaVersion: 1, personaVariant: 'support-chat' });
    expect((await client.refine(input)).personaVariant).toBeUndefined();

    const stream = client.refineStream({ ...input, variant: 'support-chat' });
    let text = '';
    for await (const piece of stream) text += piece;
    const streamed = await stream.result;
    expect([text, streamed.response, streamed.personaVariant]).toEqual(['Hi folks.', 'Hi folks.', 'support-chat']);
    expect(Object.keys(streamed)).toEqual(['response']);

    const checked = await client.check({ personaId, content: 'Hi customers.', variant: 'support-chat' });
    expect(checked.personaVariant).toBe('support-chat');
    expect(Object.keys(checked)).not.toContain('personaVariant');
    expect((await client.check({ personaId, content: 'Hi customers.' })).personaVariant).toBeUndefined();
  });

  it('chat and chatStream send the variant as X-Persona-Variant and read it back', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: 'Our customers get their refund today.' });
    const input = { persona: personaId, variant: 'support-chat', model: 'openai', providerApiKey: callerKey('openai'), messages: [{ role: 'user' as const, content: 'Refund?' }] };
    const completion = await client.chat(input);
    expect(completion.choices[0]!.message.content).toBe('Our folks get their refund today.');
    expect(completion.personaVariant).toBe('support-chat');
    expect(JSON.stringify(f.fake.requests[0]!.body)).not.toContain('support-chat');

    const stream = client.chatStream(input);
    for await (const _chunk of stream);
    const streamed = await stream.result;
    expect([streamed.choices[0]!.message.content, streamed.personaVariant]).toEqual(['Our folks get their refund today.', 'support-chat']);
    expect((await client.chat({ ...input, variant: undefined })).personaVariant).toBeUndefined();
    await expect(client.chat({ ...input, variant: 'support\nchat' })).rejects.toThrow(/variant must be/);
  });

  it('personas.variant reads the merged attributes, pinned by version or label; an unknown variant is a 404, on a call a 400', async () => {
    await client.personas.update(personaId, { attributes: { ...PERSONA.attributes, variants: { 'support-chat': { vocabulary: { customers: 'friends' } } } } });
    await client.personas.labels.set(personaId, 'production', 1);
    const newest = await client.personas.variant(personaId, 'support-chat');
    expect(newest).toEqual({ id: personaId, name: 'Acme Support', version: 2, variant: 'support-chat', attributes: { vocabulary: { customers: 'friends' }, avoid: ['synergy'] } });
    expect((await client.personas.variant(personaId, 'support-chat', { personaVersion: 1 })).attributes).toMatchObject({ vocabulary: { customers: 'folks' } });
    expect((await client.personas.variant(personaId, 'support-chat', { personaLabel: 'production' })).version).toBe(1);
    expect(await failure(client.personas.variant(personaId, 'no-such-variant'))).toMatchObject({ status: 404 });
    expect(await failure(client.refine({ provider: 'rules', personaId, content: 'Hi', variant: 'no-such-variant' }))).toMatchObject({ status: 400 });
  });
});
