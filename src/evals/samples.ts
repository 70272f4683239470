/**
 * A persona's evaluation samples (docs/evaluations.md, "Samples"): texts to refine
 * with what their answers must and must not contain. The set belongs to the
 * persona, not to a version, and is replaced whole; its own version is its ETag.
 */
import { invalidRequest, preconditionFailed } from '../errors.js';
import { uuidv7 } from '../ids.js';
import { etagFor, versionsFromIfMatch } from '../personas/etag.js';
import { type PersonaService, personaNotFound } from '../personas/persona-service.js';
import type { Actor } from '../storage/change-log.js';
import type { SampleRepository } from '../storage/sample-repository.js';

export const SAMPLES_MAX = 200;
export const SAMPLE_CONTENT_MAX_LENGTH = 20_000;
export const SAMPLE_NAME_MAX_LENGTH = 200;
export const EXPECT_TERMS_MAX = 50;
export const EXPECT_TERM_MAX_LENGTH = 1_000;

export interface SampleExpectation {
  /** Each must occur in the answer (case-sensitive, as written). */
  contains?: string[];
  /** None may occur in the answer. */
  notContains?: string[];
}

export interface Sample {
  id: string;
  name?: string;
  content: string;
  expect?: SampleExpectation;
}

/** What a PUT gives: an id only for a sample read earlier. */
export type SampleInput = Omit<Sample, 'id'> & { id?: string };

export interface SampleSet {
  samples: Sample[];
  etag: string;
}

/** Two samples are the same sample when everything but the id is equal. */
const sameText = (a: SampleInput, b: SampleInput) =>
  a.content === b.content && a.name === b.name && JSON.stringify(a.expect ?? null) === JSON.stringify(b.expect ?? null);

/** The unchanged ones keep their ids; a changed or new one gets a new id (docs/evaluations.md, "Samples"). */
function withIds(current: readonly Sample[], incoming: readonly SampleInput[]): Sample[] {
  const byId = new Map(current.map((sample) => [sample.id, sample]));
  const sent = new Set<string>();
  incoming.forEach((sample, index) => {
    if (sample.id === undefined) return;
    if (!byId.has(sample.id)) throw invalidRequest(`samples.${index}.id "${sample.id.slice(0, 64)}" is not one of this persona's samples; leave id out for a new sample`);
    if (sent.has(sample.id)) throw invalidRequest(`samples.${index}.id "${sample.id}" is given twice`);
    sent.add(sample.id);
  });
  // An id sent with its sample unchanged is kept; one sent with a changed sample names an old text, not this one.
  const ids = incoming.map((sample) => {
    const previous = sample.id === undefined ? undefined : byId.get(sample.id);
    return previous && sameText(previous, sample) ? previous.id : undefined;
  });
  // A sample sent without its id still keeps the id of an identical sample nobody else claimed.
  const claimed = new Set([...sent]);
  return incoming.map((sample, index) => {
    let id = ids[index];
    if (id === undefined && sample.id === undefined) id = current.find((c) => !claimed.has(c.id) && sameText(c, sample))?.id;
    if (id === undefined) id = uuidv7();
    claimed.add(id);
    return {
      id,
      ...(sample.name === undefined ? {} : { name: sample.name }),
      content: sample.content,
      ...(sample.expect === undefined ? {} : { expect: sample.expect }),
    };
  });
}

/** The samples' own ETag, not the persona's (docs/evaluations.md, "Samples"). */
export const samplesMismatch = () =>
  preconditionFailed('If-Match does not match the samples\' current ETag; fetch them again and retry with the new ETag');

export class EvalSamples {
  constructor(
    private readonly sets: SampleRepository,
    private readonly personas: PersonaService,
  ) {}

  async get(accountId: string, personaId: string): Promise<SampleSet> {
    await this.personas.get(accountId, personaId);
    const row = await this.sets.find(personaId);
    return { samples: row ? (JSON.parse(row.samples) as Sample[]) : [], etag: etagFor(row?.version ?? 0) };
  }

  /** The persona's set, read without the persona check (the caller made it). */
  async current(personaId: string): Promise<Sample[]> {
    const row = await this.sets.find(personaId);
    return row ? (JSON.parse(row.samples) as Sample[]) : [];
  }

  async replace(actor: Actor, personaId: string, incoming: readonly SampleInput[], ifMatch: string | undefined): Promise<SampleSet> {
    if (incoming.length > SAMPLES_MAX) throw invalidRequest(`samples must hold at most ${SAMPLES_MAX} samples`);
    await this.personas.get(actor.accountId, personaId);
    const expected = versionsFromIfMatch(ifMatch);
    const row = await this.sets.find(personaId);
    const version = row?.version ?? 0;
    if (expected !== undefined && !expected.includes(version)) throw samplesMismatch();
    const samples = withIds(row ? (JSON.parse(row.samples) as Sample[]) : [], incoming);
    const written = await this.sets.replace(actor.accountId, personaId, version, JSON.stringify(samples), new Date().toISOString());
    // Another writer got there between the read and the write: as if its ETag had been seen.
    if (written === undefined) {
      if (expected !== undefined) throw samplesMismatch();
      return this.replace(actor, personaId, incoming, ifMatch);
    }
    if (written === 'persona_gone') throw personaNotFound(personaId);
    return { samples, etag: etagFor(written) };
  }
}
