/**
 * The persona use cases. Rows stay rows until the edge: attributes are kept as
 * the JSON text that was stored, so reads never re-parse and re-serialize them.
 */
import { notFound, preconditionFailed } from '../errors.js';
import { uuidv7 } from '../ids.js';
import type { CreatePersonaBody, UpdatePersonaBody } from '../schemas/persona.js';
import type { PersonaChanges, PersonaRepository, PersonaRow } from '../storage/persona-repository.js';
import { etagFor, versionsFromIfMatch } from './etag.js';
import { normalizeName, serializeAttributes } from './persona-rules.js';

export interface PersonaRecord {
  id: string;
  name: string;
  /** JSON text of the attributes object, exactly as stored. */
  attributesJson: string;
  etag: string;
  updatedAt: Date;
}

export interface PersonaPage {
  personas: PersonaRecord[];
  nextCursor: string | undefined;
  /** The page size used, for the next page's link. */
  limit: number | undefined;
}

/** Paging is on once `limit` or `cursor` is given; a cursor alone pages by this many. */
export const DEFAULT_PAGE_SIZE = 100;

const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function toRecord(row: PersonaRow): PersonaRecord {
  return {
    id: row.id,
    name: row.name,
    attributesJson: row.attributes,
    etag: etagFor(row.version),
    updatedAt: new Date(row.updated_at),
  };
}

// Echo the id only when it is one we could have issued: never reflect arbitrary input.
const personaNotFound = (id: string) => notFound(ID_SHAPE.test(id) ? `persona "${id}" not found` : 'persona not found');

const mismatch = () =>
  preconditionFailed('If-Match does not match the persona\'s current ETag; fetch it again and retry with the new ETag');

export class PersonaService {
  constructor(private readonly personas: PersonaRepository) {}

  async create(accountId: string, body: CreatePersonaBody): Promise<PersonaRecord> {
    const now = new Date().toISOString();
    const row = await this.personas.insert({
      id: uuidv7(),
      account_id: accountId,
      name: normalizeName(body.name),
      attributes: serializeAttributes(body.attributes ?? {}),
      version: 1,
      created_at: now,
      updated_at: now,
    });
    return toRecord(row);
  }

  async get(accountId: string, id: string): Promise<PersonaRecord> {
    // Ids we could never have issued cannot exist: answer without asking storage.
    const row = ID_SHAPE.test(id) ? await this.personas.findForAccount(accountId, id) : undefined;
    if (!row) throw personaNotFound(id);
    return toRecord(row);
  }

  async list(accountId: string, page: { limit?: number; cursor?: string }): Promise<PersonaPage> {
    if (page.limit === undefined && page.cursor === undefined) {
      const rows = await this.personas.listForAccount(accountId);
      return { personas: rows.map(toRecord), nextCursor: undefined, limit: undefined };
    }
    const limit = page.limit ?? DEFAULT_PAGE_SIZE;
    // One extra row tells whether there is a next page without a second query.
    const rows = await this.personas.listForAccount(accountId, { afterId: page.cursor, limit: limit + 1 });
    const hasMore = rows.length > limit;
    const personas = rows.slice(0, limit).map(toRecord);
    return { personas, nextCursor: hasMore ? personas[personas.length - 1]?.id : undefined, limit };
  }

  async update(accountId: string, id: string, body: UpdatePersonaBody, ifMatch: string | undefined): Promise<PersonaRecord> {
    const changes: PersonaChanges = {};
    if (body.name !== undefined) changes.name = normalizeName(body.name);
    if (body.attributes !== undefined) changes.attributes = serializeAttributes(body.attributes);
    const expected = versionsFromIfMatch(ifMatch);
    if (!ID_SHAPE.test(id)) throw personaNotFound(id);
    if (expected?.length === 0) {
      await this.get(accountId, id);
      throw mismatch();
    }
    const outcome = await this.personas.update(accountId, id, changes, new Date().toISOString(), expected);
    if (outcome.status === 'not_found') throw personaNotFound(id);
    if (outcome.status === 'version_mismatch') throw mismatch();
    return toRecord(outcome.row);
  }

  async delete(accountId: string, id: string, ifMatch: string | undefined): Promise<void> {
    if (!ID_SHAPE.test(id)) throw personaNotFound(id);
    const expected = versionsFromIfMatch(ifMatch);
    if (expected?.length === 0) {
      await this.get(accountId, id);
      throw mismatch();
    }
    const outcome = await this.personas.delete(accountId, id, expected);
    if (outcome.status === 'not_found') throw personaNotFound(id);
    if (outcome.status === 'version_mismatch') throw mismatch();
  }
}

/** The Persona body, built from stored JSON text rather than re-serializing the attributes. */
export function personaJson(record: PersonaRecord): string {
  return `{"id":${JSON.stringify(record.id)},"name":${JSON.stringify(record.name)},"attributes":${record.attributesJson}}`;
}
