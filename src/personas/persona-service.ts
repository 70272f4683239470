/**
 * The persona use cases. Rows stay rows until the edge: attributes are kept as
 * the JSON text that was stored; the HTTP edge splices it into the body as stored
 * (docs/http-contract.md, "Response bodies").
 */
import { API_KEY_PREFIX } from '../accounts/api-key.js';
import { lacksScope, notFound, preconditionFailed } from '../errors.js';
import { uuidv7 } from '../ids.js';
import { PROVIDER_KEY_PREFIXES } from '../providers/secret-scrubber.js';
import type { Actor } from '../storage/change-log.js';
import type { PersonaChanges, PersonaRepository, PersonaRow, SetLabel } from '../storage/persona-repository.js';
import { etagFor, versionsFromIfMatch } from './etag.js';
import { isProtected, type ProtectedLabelRight } from './labels.js';
import { normalizeName, serializeAttributes } from './persona-rules.js';

export interface PersonaRecord {
  id: string;
  name: string;
  /** JSON text of the attributes object, exactly as stored. */
  attributesJson: string;
  /** The number the ETag carries; also the newest version in the persona's history. */
  version: number;
  etag: string;
  updatedAt: Date;
}

/** What a new persona is made of (POST /v1/personas adapts its body to this). */
export interface NewPersona {
  name: string;
  attributes?: Record<string, unknown>;
}

/** The fields a persona update changes; an absent one is kept. */
export interface PersonaUpdate {
  name?: string;
  attributes?: Record<string, unknown>;
}

export interface PersonaPage {
  personas: PersonaRecord[];
  nextCursor: string | undefined;
  /** The page size used, for the next page's link. */
  limit: number | undefined;
}

/** Paging is on once `limit` or `cursor` is given; a cursor alone pages by this many. */
export const DEFAULT_PAGE_SIZE = 100;
/** Personas read at a time for an unpaged list (see `all`). */
const LIST_BATCH = 8;

const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function toRecord(row: PersonaRow): PersonaRecord {
  return {
    id: row.id,
    name: row.name,
    attributesJson: row.attributes,
    version: row.version,
    etag: etagFor(row.version),
    updatedAt: new Date(row.updated_at),
  };
}

/** Whether an id is one we could have issued; anything else cannot exist. */
export const isPersonaId = (id: string) => ID_SHAPE.test(id);

/** A malformed id is shown whole up to this many characters (a UUID has 36), else as its first and last few. */
const SHOWN_ID_MAX = 64;
const SHOWN_ID_HEAD = 32;
const SHOWN_ID_TAIL = 8;
const KEY_PREFIXES = [API_KEY_PREFIX, ...PROVIDER_KEY_PREFIXES];

/**
 * A string that is no persona id, as a message shows it: JSON-quoted, so quotes, backslashes and
 * control characters read unambiguously; long ones cut to their head and tail, in code points so
 * no character is split. A key pasted where the id belongs shows only its prefix: the message
 * may be logged or kept as an idempotent answer, and no secret may be.
 */
function shownId(id: string): string {
  const keyPrefix = KEY_PREFIXES.find((prefix) => id.startsWith(prefix));
  if (keyPrefix !== undefined) return JSON.stringify(`${keyPrefix}…`);
  const characters = Array.from(id);
  if (characters.length <= SHOWN_ID_MAX) return JSON.stringify(id);
  return JSON.stringify(`${characters.slice(0, SHOWN_ID_HEAD).join('')}…${characters.slice(-SHOWN_ID_TAIL).join('')}`);
}

/**
 * The one 404 of a persona id, on every route that takes one (docs/http-contract.md, "Not found"):
 * a well-formed id that names no persona of the account, or a string that could be no id at all
 * (a paste that lost a character), which needs no query to answer.
 */
export const personaNotFound = (id: string) => notFound(ID_SHAPE.test(id) ? `persona "${id}" not found` : `${shownId(id)} is not a persona id`);

/** The versions an If-Match allows, or a 412 right away when it names none we could match. */
export async function expectedVersions(ifMatch: string | undefined, exists: () => Promise<unknown>): Promise<number[] | undefined> {
  const expected = versionsFromIfMatch(ifMatch);
  if (expected?.length === 0) {
    await exists();
    throw mismatch();
  }
  return expected;
}

export const mismatch = () =>
  preconditionFailed('If-Match does not match the persona\'s current ETag; fetch it again and retry with the new ETag');

export class PersonaService {
  constructor(private readonly personas: PersonaRepository) {}

  async create(actor: Actor, body: NewPersona): Promise<PersonaRecord> {
    const now = new Date().toISOString();
    const row = await this.personas.insert({
      id: uuidv7(),
      account_id: actor.accountId,
      name: normalizeName(body.name),
      attributes: serializeAttributes(body.attributes ?? {}),
      version: 1,
      created_at: now,
      updated_at: now,
    }, { ...actor, at: now });
    return toRecord(row);
  }

  async get(accountId: string, id: string): Promise<PersonaRecord> {
    // Ids we could never have issued cannot exist: answer without asking storage.
    const row = ID_SHAPE.test(id) ? await this.personas.findForAccount(accountId, id) : undefined;
    if (!row) throw personaNotFound(id);
    return toRecord(row);
  }

  /**
   * Every persona of the account, oldest first, read a few at a time: a caller holds at most
   * one batch (each persona up to 64 KiB of attributes) however many there are, and a client
   * that reads slowly holds no more. The first batch is read before this returns, so a
   * storage failure is still an ordinary error; later batches follow as they are consumed.
   */
  async all(accountId: string): Promise<{ first: PersonaRecord[]; rest: AsyncGenerator<PersonaRecord[]> | undefined }> {
    const read = async (afterId?: string) => (await this.personas.listForAccount(accountId, { afterId, limit: LIST_BATCH + 1 })).map(toRecord);
    const batch = await read();
    if (batch.length <= LIST_BATCH) return { first: batch, rest: undefined };
    const first = batch.slice(0, LIST_BATCH);
    async function* rest(): AsyncGenerator<PersonaRecord[]> {
      let next = await read(first[first.length - 1]?.id);
      while (next.length > LIST_BATCH) {
        const page = next.slice(0, LIST_BATCH);
        yield page;
        next = await read(page[page.length - 1]?.id);
      }
      if (next.length > 0) yield next;
    }
    return { first, rest: rest() };
  }

  async list(accountId: string, page: { limit?: number; cursor?: string }): Promise<PersonaPage> {
    const limit = page.limit ?? DEFAULT_PAGE_SIZE;
    // One extra row tells whether there is a next page without a second query.
    const rows = await this.personas.listForAccount(accountId, { afterId: page.cursor, limit: limit + 1 });
    const hasMore = rows.length > limit;
    const personas = rows.slice(0, limit).map(toRecord);
    return { personas, nextCursor: hasMore ? personas[personas.length - 1]?.id : undefined, limit };
  }

  async update(actor: Actor, id: string, body: PersonaUpdate, ifMatch: string | undefined): Promise<PersonaRecord> {
    const changes: PersonaChanges = {};
    if (body.name !== undefined) changes.name = normalizeName(body.name);
    if (body.attributes !== undefined) changes.attributes = serializeAttributes(body.attributes);
    if (!ID_SHAPE.test(id)) throw personaNotFound(id);
    const expected = await expectedVersions(ifMatch, () => this.get(actor.accountId, id));
    const outcome = await this.personas.update({ ...actor, at: new Date().toISOString() }, id, changes, expected);
    if (outcome.status === 'not_found') throw personaNotFound(id);
    if (outcome.status === 'version_mismatch') throw mismatch();
    return toRecord(outcome.row);
  }

  /**
   * Deleting removes every label, so a protected one that points at a version needs `labels:protected`
   * as its removal would (docs/keys-and-scopes.md, "Protected labels").
   */
  async delete(actor: Actor, id: string, ifMatch: string | undefined, protectedRight: ProtectedLabelRight): Promise<void> {
    if (!ID_SHAPE.test(id)) throw personaNotFound(id);
    const expected = await expectedVersions(ifMatch, () => this.get(actor.accountId, id));
    const admit = (labels: SetLabel[]) => {
      if (!labels.some((set) => isProtected(set.label, set.protected))) return;
      if (!protectedRight.granted) throw lacksScope('labels:protected');
      protectedRight.used();
    };
    const outcome = await this.personas.delete({ ...actor, at: new Date().toISOString() }, id, admit, expected);
    if (outcome.status === 'not_found') throw personaNotFound(id);
    if (outcome.status === 'version_mismatch') throw mismatch();
  }
}
