/**
 * A persona's evaluation samples (docs/evaluations.md, "Samples"): texts to refine
 * with what their answers must and must not contain. The set belongs to the
 * persona, not to a version, and is replaced whole; its own version is its ETag.
 */
import { createHash } from 'node:crypto';
import { setImmediate as otherRequestsFirst } from 'node:timers/promises';
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
  /** One of the persona's `variants` to refine it in, instead of the run's. */
  variant?: string;
}

/** What a PUT gives: an id only for a sample read earlier. */
export type SampleInput = Omit<Sample, 'id'> & { id?: string };

export interface SampleSet {
  samples: Sample[];
  etag: string;
}

/**
 * Two samples are the same sample when everything but the id is equal: the same text. Each
 * sample's text is digested once, so matching a set against the stored one is linear in their
 * size (comparing every pair, a 9.5 MiB set against 200 stored samples took 10 s of CPU). A
 * digest, not the text itself, keys the maps: V8 hashes a string longer than 16,383 characters
 * by its length alone, so texts of one length would all share one bucket and be compared in full.
 */
const textOf = (sample: SampleInput) =>
  createHash('sha256')
    .update(
      JSON.stringify([
        sample.name ?? null, sample.content, sample.expect === undefined ? null : [sample.expect.contains ?? null, sample.expect.notContains ?? null], sample.variant ?? null,
      ]),
    )
    .digest('base64');

/** The unchanged ones keep their ids; a changed or new one gets a new id (docs/evaluations.md, "Samples"). */
function withIds(current: readonly Sample[], incoming: readonly SampleInput[]): Sample[] {
  const storedTexts = new Map(current.map((sample) => [sample.id, textOf(sample)]));
  const sent = new Set<string>();
  incoming.forEach((sample, index) => {
    if (sample.id === undefined) return;
    if (!storedTexts.has(sample.id)) throw invalidRequest(`samples.${index}.id "${sample.id.slice(0, 64)}" is not one of this persona's samples; leave id out for a new sample`);
    if (sent.has(sample.id)) throw invalidRequest(`samples.${index}.id "${sample.id}" is given twice`);
    sent.add(sample.id);
  });
  // The stored samples' ids by text, in their order (several may share one), and how many of each are claimed.
  const byText = new Map<string, { ids: string[]; next: number }>();
  for (const [id, text] of storedTexts) {
    const same = byText.get(text);
    if (same) same.ids.push(id);
    else byText.set(text, { ids: [id], next: 0 });
  }
  const texts = incoming.map(textOf);
  // An id sent with its sample unchanged is kept; one sent with a changed sample names an old text, not this one.
  const ids = incoming.map((sample, index) => (sample.id !== undefined && storedTexts.get(sample.id) === texts[index] ? sample.id : undefined));
  // A sample sent without its id still keeps the id of the first identical sample nobody else claimed.
  const claimed = new Set([...sent]);
  return incoming.map((sample, index) => {
    let id = ids[index];
    if (id === undefined && sample.id === undefined) {
      const same = byText.get(texts[index]!);
      // A claimed id stays claimed, so each list is walked once over the whole set.
      while (same && same.next < same.ids.length && claimed.has(same.ids[same.next]!)) same.next++;
      id = same?.ids[same.next];
    }
    if (id === undefined) id = uuidv7();
    claimed.add(id);
    return {
      id,
      ...(sample.name === undefined ? {} : { name: sample.name }),
      content: sample.content,
      ...(sample.expect === undefined ? {} : { expect: sample.expect }),
      ...(sample.variant === undefined ? {} : { variant: sample.variant }),
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
    // A set of megabytes is parsed, validated, matched, written and answered in steps of a few
    // tens of milliseconds each; on SQLite every await here resolves at once, so without these
    // the steps would block other requests as one (docs/evaluations.md, "Samples").
    await otherRequestsFirst();
    const row = await this.sets.find(personaId);
    const version = row?.version ?? 0;
    if (expected !== undefined && !expected.includes(version)) throw samplesMismatch();
    const samples = withIds(row ? (JSON.parse(row.samples) as Sample[]) : [], incoming);
    await otherRequestsFirst();
    const written = await this.sets.replace(actor.accountId, personaId, version, JSON.stringify(samples), new Date().toISOString());
    await otherRequestsFirst();
    // Another writer got there between the read and the write: as if its ETag had been seen.
    if (written === undefined) {
      if (expected !== undefined) throw samplesMismatch();
      return this.replace(actor, personaId, incoming, ifMatch);
    }
    if (written === 'persona_gone') throw personaNotFound(personaId);
    return { samples, etag: etagFor(written) };
  }
}
