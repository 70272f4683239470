/**
 * Reads a model's draft against the catalogue, leniently: whatever fits is kept, whatever does
 * not is dropped with a warning, so a hostile or confused answer (wrong types, unknown keys, a
 * list of thousands, quotes that are in no sample) still gives a draft, never an error. What
 * is kept is what POST /v1/personas accepts: each attribute parses through its shape, and the
 * whole fits the attributes' size.
 */
import { isJsonObject } from '../../json-object.js';
import type { SecretScrubber } from '../../providers/secret-scrubber.js';
import { ATTRIBUTE_CATALOGUE, type AttributeSpec, INVALID, type JsonSchema, shapeMessage } from '../catalogue/index.js';
import { ATTRIBUTES_MAX_BYTES, NAME_MAX_LENGTH } from '../persona-rules.js';
import { DRAFT_LIMITS, DRAFTED_DESCRIPTIVE, draftedKeys, draftsTerms } from './draft-prompt.js';

export interface DraftWarning {
  /** The attribute the warning is about, when it is one a draft fills. */
  attribute?: string;
  message: string;
}

export interface ReadDraft {
  /** The model's name for the voice, when it gave a usable one. */
  name?: string;
  attributes: Record<string, unknown>;
  evidence: Record<string, string>;
  warnings: DraftWarning[];
}

/** More warnings than this say only how many more there were. */
const MAX_WARNINGS = 50;
/** Evidence items read; a draft fills fewer attributes than this. */
const MAX_EVIDENCE_ITEMS = 100;

type Json = Record<string, unknown>;
const catalogue = ATTRIBUTE_CATALOGUE as unknown as Record<string, AttributeSpec<unknown>>;
/** A string of the model's, as short as a message needs it. */
const named = (value: string) => JSON.stringify(value.length > 64 ? `${value.slice(0, 63)}…` : value);
/** More than `max` characters (code points), counted only as far as needed: a model's text may be megabytes. */
function exceeds(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > max * 2) return true;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}
const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`);

/** The most entries a list shape takes (its schema's, or its list branch's, `maxItems`). */
function maxItems(schema: JsonSchema): number {
  const branches = [schema, ...((schema.anyOf as JsonSchema[] | undefined) ?? [])];
  const bound = branches.find((branch) => branch.type === 'array' && typeof branch.maxItems === 'number')?.maxItems;
  return typeof bound === 'number' ? bound : Number.POSITIVE_INFINITY;
}

/** Text as quotes are compared: NFC, every run of blanks one space. */
export const comparable = (text: string) => text.normalize('NFC').replace(/\s+/gu, ' ').trim();

/** Collects warnings, at most MAX_WARNINGS of them and then a count of the rest. */
class Warnings {
  readonly list: DraftWarning[] = [];
  private more = 0;

  add(message: string, attribute?: string): void {
    if (this.list.length < MAX_WARNINGS) this.list.push(attribute === undefined ? { message } : { attribute, message });
    else this.more++;
  }

  done(): DraftWarning[] {
    return this.more === 0 ? this.list : [...this.list, { message: `${this.more} more warnings left out` }];
  }
}

export function readDraft(text: string, samples: readonly string[], scrubber: SecretScrubber): ReadDraft {
  const warnings = new Warnings();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    warnings.add('the model answered with something other than JSON; nothing of it was used');
    return { attributes: {}, evidence: {}, warnings: warnings.done() };
  }
  if (!isJsonObject(answer)) {
    warnings.add(`the model answered with ${typeOf(answer)}, not an object of attributes; nothing of it was used`);
    return { attributes: {}, evidence: {}, warnings: warnings.done() };
  }
  return new DraftReader(answer, samples.map(comparable), scrubber, warnings).read();
}

class DraftReader {
  private readonly attributes: Json = {};

  constructor(
    private readonly answer: Json,
    private readonly samples: readonly string[],
    private readonly scrubber: SecretScrubber,
    private readonly warnings: Warnings,
  ) {}

  read(): ReadDraft {
    const expected = new Set(['name', ...draftedKeys(), 'evidence']);
    for (const key of Object.keys(this.answer)) {
      if (!expected.has(key)) this.warnings.add(`the model's answer has a member ${named(this.clean(key))} that no draft fills; it was left out`);
    }
    const name = this.name();
    for (const [key, kind] of DRAFTED_DESCRIPTIVE) this.descriptive(key, kind);
    this.vocabulary();
    this.list('avoid', (item) => (typeof item === 'string' ? this.clean(item) : INVALID));
    this.signOff();
    this.examples();
    if (draftsTerms()) this.list('terms', (item) => this.term(item));
    this.fit();
    const evidence = this.evidence();
    return { ...(name === undefined ? {} : { name }), attributes: this.attributes, evidence, warnings: this.warnings.done() };
  }

  /** Every text of the model's is scrubbed of the request's key as it is read: a model may repeat it. */
  private clean(text: string): string {
    return this.scrubber.scrub(text);
  }

  private occurs(quote: string): boolean {
    const wanted = comparable(quote);
    return wanted !== '' && this.samples.some((sample) => sample.includes(wanted));
  }

  private name(): string | undefined {
    const { name } = this.answer;
    if (name === undefined || name === '') return undefined;
    const trimmed = typeof name === 'string' ? this.clean(name).trim() : '';
    if (trimmed !== '' && !exceeds(trimmed, NAME_MAX_LENGTH)) return trimmed;
    this.warnings.add(`the model's name is ${typeof name === 'string' ? `not 1 to ${NAME_MAX_LENGTH} characters` : typeOf(name)}; the draft is named otherwise`);
    return undefined;
  }

  /** Keeps `value` for `key` when its shape takes it; a value the shape reads as empty sets nothing. */
  private keep(key: string, value: unknown): void {
    const parsed = catalogue[key]!.shape.parse(value);
    if (parsed === INVALID) this.warnings.add(`dropped: ${shapeMessage(key as never).replace(/ or null$/, '')}`, key);
    else if (parsed !== undefined) this.attributes[key] = value;
  }

  private descriptive(key: string, kind: 'text' | 'list'): void {
    const value = this.answer[key];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return;
    const tooLong = (text: string) => exceeds(text, DRAFT_LIMITS.text);
    if (typeof value === 'string') {
      if (tooLong(value)) return this.warnings.add(`dropped: longer than ${DRAFT_LIMITS.text} characters`, key);
      return this.keep(key, this.clean(value).trim());
    }
    if (kind === 'list' && Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      if (value.length > 20 || value.some(tooLong)) return this.warnings.add(`dropped: more than 20 phrases, or one longer than ${DRAFT_LIMITS.text} characters`, key);
      return this.keep(key, value.map((item) => this.clean(item).trim()).filter((item) => item !== ''));
    }
    this.warnings.add(`dropped: the model gave ${typeOf(value)}, not ${kind === 'list' ? 'a list of phrases' : 'a text'}`, key);
  }

  /** The items of a list the model gave, or undefined (with a warning) when it gave no list. */
  private items(key: string): unknown[] | undefined {
    const value = this.answer[key];
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return value;
    this.warnings.add(`dropped: the model gave ${typeOf(value)}, not a list`, key);
    return undefined;
  }

  /**
   * A list attribute, item by item: an item its shape refuses alone is dropped, a repeated one
   * too, and past the shape's largest list the rest are dropped, each with one warning.
   */
  private list(key: string, item: (value: unknown) => unknown): void {
    const items = this.items(key);
    if (!items) return;
    const { shape } = catalogue[key]!;
    const most = maxItems(shape.schema);
    const kept: unknown[] = [];
    let refused = 0;
    for (const candidate of items) {
      if (kept.length === most) break;
      const value = item(candidate);
      if (value === INVALID || shape.parse([value]) === INVALID) refused++;
      else kept.push(value);
    }
    const beyond = items.length - kept.length - refused;
    if (refused > 0) this.warnings.add(`dropped ${refused} ${refused === 1 ? 'entry' : 'entries'} of none of its shapes: ${shapeMessage(key as never).replace(/ or null$/, '')}`, key);
    if (beyond > 0) this.warnings.add(`dropped the last ${beyond} entries: it holds at most ${most}`, key);
    this.keep(key, kept);
  }

  private vocabulary(): void {
    const items = this.items('vocabulary');
    if (!items) return;
    const pairs: [string, string][] = [];
    let refused = 0;
    for (const item of items) {
      if (isJsonObject(item) && typeof item.from === 'string' && typeof item.to === 'string') pairs.push([this.clean(item.from), this.clean(item.to)]);
      else refused++;
    }
    const { shape } = catalogue.vocabulary!;
    const kept: Record<string, string> = {};
    for (const [from, to] of pairs) {
      if (Object.hasOwn(kept, from) || shape.parse({ [from]: to }) === INVALID) refused++;
      else if (shape.parse({ ...kept, [from]: to }) === INVALID) break;
      else kept[from] = to;
    }
    const beyond = pairs.length + (items.length - pairs.length) - Object.keys(kept).length - refused;
    if (refused > 0) this.warnings.add(`dropped ${refused} ${refused === 1 ? 'entry' : 'entries'} that are not two terms of at most 100 characters`, 'vocabulary');
    if (beyond > 0) this.warnings.add(`dropped the last ${beyond} entries: it holds at most ${Object.keys(kept).length}`, 'vocabulary');
    this.keep('vocabulary', kept);
  }

  private signOff(): void {
    const value = this.answer.signOff;
    if (value === undefined || value === '') return;
    if (typeof value !== 'string') return this.warnings.add(`dropped: the model gave ${typeOf(value)}, not a text`, 'signOff');
    if (!this.occurs(value)) return this.warnings.add('dropped: the sign-off is in none of the samples', 'signOff');
    this.keep('signOff', this.clean(value).trim());
  }

  private examples(): void {
    const items = this.items('examples');
    if (!items) return;
    const kept: { before: string; after: string }[] = [];
    let refused = 0;
    let invented = 0;
    for (const item of items) {
      if (kept.length === DRAFT_LIMITS.examples) break;
      const fits = (side: unknown): side is string => typeof side === 'string' && side.trim() !== '' && !exceeds(side, DRAFT_LIMITS.example);
      if (!isJsonObject(item) || !fits(item.before) || !fits(item.after)) refused++;
      else if (!this.occurs(item.after)) invented++;
      else kept.push({ before: this.clean(item.before).trim(), after: this.clean(item.after).trim() });
    }
    const beyond = items.length - kept.length - refused - invented;
    if (refused > 0) this.warnings.add(`dropped ${refused} that are not a before and an after of 1 to ${DRAFT_LIMITS.example} characters`, 'examples');
    if (invented > 0) this.warnings.add(`dropped ${invented} whose "after" is in none of the samples`, 'examples');
    if (beyond > 0) this.warnings.add(`dropped the last ${beyond}: a draft keeps at most ${DRAFT_LIMITS.examples}`, 'examples');
    this.keep('examples', kept);
  }

  /** A term base entry with only the members a draft fills and the model set. */
  private term(item: unknown): unknown {
    if (!isJsonObject(item) || typeof item.term !== 'string') return INVALID;
    const entry: Json = { term: this.clean(item.term), use: item.use };
    if (Array.isArray(item.replaces) && item.replaces.length > 0) {
      entry.replaces = item.replaces.map((replaced) => (typeof replaced === 'string' ? this.clean(replaced) : replaced));
    }
    for (const member of ['suggest', 'note'] as const) {
      const value = item[member];
      if (value !== undefined && value !== '') entry[member] = typeof value === 'string' ? this.clean(value) : value;
    }
    return entry;
  }

  /**
   * What POST /v1/personas stores: the largest list (or `vocabulary`'s object) loses its last
   * entries until the attributes fit; an attribute with no entries left goes whole.
   */
  private fit(): void {
    const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
    let total = size(this.attributes);
    const cut = new Map<string, number>();
    while (total > ATTRIBUTES_MAX_BYTES) {
      const [key, value] = Object.entries(this.attributes).sort(([, a], [, b]) => size(b) - size(a))[0]!;
      const entries = Array.isArray(value) ? value : isJsonObject(value) ? Object.entries(value) : [];
      // A batch at a time, sized to what is over: one entry at a time would measure thousands of times.
      const over = total - ATTRIBUTES_MAX_BYTES;
      let dropped = 0;
      for (let freed = 0; freed < over && dropped < entries.length; dropped++) freed += size(entries[entries.length - 1 - dropped]) + 1;
      const kept = entries.slice(0, entries.length - dropped);
      if (kept.length === 0) delete this.attributes[key];
      else this.attributes[key] = Array.isArray(value) ? kept : Object.fromEntries(kept as [string, unknown][]);
      cut.set(key, (cut.get(key) ?? 0) + (dropped === 0 ? 1 : dropped));
      total = size(this.attributes);
    }
    for (const [key, count] of cut) {
      const message = Object.hasOwn(this.attributes, key) ? `dropped the last ${count} entries` : 'dropped';
      this.warnings.add(`${message}: the attributes must fit in ${ATTRIBUTES_MAX_BYTES / 1024} KiB`, key);
    }
  }

  /** One short quote per kept attribute, each found in a sample. */
  private evidence(): Record<string, string> {
    const evidence: Record<string, string> = {};
    const items = this.items('evidence');
    if (!items) return evidence;
    if (items.length > MAX_EVIDENCE_ITEMS) this.warnings.add(`the model gave ${items.length} evidence quotes; only the first ${MAX_EVIDENCE_ITEMS} were read`);
    for (const item of items.slice(0, MAX_EVIDENCE_ITEMS)) {
      if (!isJsonObject(item) || typeof item.attribute !== 'string' || typeof item.quote !== 'string') {
        this.warnings.add('dropped an evidence quote that is not an attribute and a quote');
        continue;
      }
      const attribute = this.clean(item.attribute);
      const quote = comparable(this.clean(item.quote));
      if (!Object.hasOwn(this.attributes, attribute)) this.warnings.add(`dropped the evidence for ${named(attribute)}, which the draft does not set`);
      else if (Object.hasOwn(evidence, attribute)) continue;
      else if (quote === '' || exceeds(quote, DRAFT_LIMITS.quote)) this.warnings.add(`dropped its evidence: not a quote of 1 to ${DRAFT_LIMITS.quote} characters`, attribute);
      else if (!this.occurs(quote)) this.warnings.add('dropped its evidence: the quote is in none of the samples', attribute);
      else evidence[attribute] = quote;
    }
    return evidence;
  }
}
