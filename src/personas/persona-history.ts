/**
 * Persona versions and labels: list and read versions, restore one as the
 * newest, point labels at versions, and resolve what refine and check pin to.
 */
import { invalidRequest, notFound } from '../errors.js';
import { LABEL_MAX_LENGTH, LabelRefused, LATEST_LABEL, type PersonaLabels } from './labels.js';
import type { Actor } from '../storage/change-log.js';
import type { HistoryMiss, LabelGate, PersonaHistoryRepository, PersonaVersionRow } from '../storage/persona-history-repository.js';
import {
  DEFAULT_PAGE_SIZE,
  expectedVersions,
  isPersonaId,
  mismatch,
  type PersonaRecord,
  type PersonaService,
  personaNotFound,
  toRecord,
} from './persona-service.js';

export interface VersionRecord {
  version: number;
  name: string;
  /** JSON text of the attributes, exactly as stored. */
  attributesJson: string;
  createdAt: string;
  createdBy: string | null;
}

export interface VersionPage {
  versions: VersionRecord[];
  nextCursor: number | undefined;
  limit: number | undefined;
}

/** A label move a policy refused, and why (the 409's message). */
export interface LabelRefusal {
  personaId: string;
  label: string;
  version: number;
  reason: string;
}

/** What a refine or check asks for; neither means the newest version. */
export interface PersonaPin {
  personaVersion?: number;
  personaLabel?: string;
  /** One of that version's `variants`, merged over its attributes (src/personas/variants.ts). */
  variant?: string;
}

const LABEL_SHAPE = new RegExp(`^[a-z0-9-]{1,${LABEL_MAX_LENGTH}}$`);

/** Refuses a label name that could never be set (and `latest` where it is implicit). */
export function checkLabelName(label: string, { allowLatest }: { allowLatest: boolean }): void {
  if (!LABEL_SHAPE.test(label)) {
    throw invalidRequest(`label must be 1-${LABEL_MAX_LENGTH} characters of lowercase letters, digits and "-"`);
  }
  if (!allowLatest && label === LATEST_LABEL) {
    throw invalidRequest('label "latest" always means the newest version and cannot be set or removed');
  }
}

function toVersionRecord(row: PersonaVersionRow): VersionRecord {
  return { version: row.version, name: row.name, attributesJson: row.attributes, createdAt: row.created_at, createdBy: row.created_by };
}

const versionNotFound = (id: string, version: number) => notFound(`version ${version} of persona "${id}" not found`);
const labelNotFound = (id: string, label: string) => notFound(`label "${label}" of persona "${id}" not found`);

export class PersonaHistory {
  /** `refused`: told of every label move a policy refused (a label.refused webhook event); it must not throw. */
  constructor(
    private readonly history: PersonaHistoryRepository,
    private readonly personas: PersonaService,
    private readonly refused: (actor: Actor, refusal: LabelRefusal) => Promise<void> = async () => {},
  ) {}

  async listVersions(accountId: string, id: string, page: { limit?: number; cursor?: number }): Promise<VersionPage> {
    if (!isPersonaId(id)) throw personaNotFound(id);
    const paged = page.limit !== undefined || page.cursor !== undefined;
    const limit = paged ? (page.limit ?? DEFAULT_PAGE_SIZE) : undefined;
    // One extra row tells whether there is a next page without a second query.
    const rows = await this.history.listVersions(accountId, id, { afterVersion: page.cursor, limit: limit === undefined ? undefined : limit + 1 });
    // Every persona has at least one version: none at all (before any cursor) means no such persona.
    if (rows.length === 0) await this.personas.get(accountId, id);
    const hasMore = limit !== undefined && rows.length > limit;
    const versions = rows.slice(0, limit).map(toVersionRecord);
    return { versions, nextCursor: hasMore ? versions[versions.length - 1]?.version : undefined, limit };
  }

  async getVersion(accountId: string, id: string, version: number): Promise<VersionRecord> {
    if (!isPersonaId(id)) throw personaNotFound(id);
    const row = await this.history.findVersion(accountId, id, version);
    if (row) return toVersionRecord(row);
    await this.personas.get(accountId, id);
    throw versionNotFound(id, version);
  }

  async restore(actor: Actor, id: string, version: number, ifMatch: string | undefined): Promise<PersonaRecord> {
    if (!isPersonaId(id)) throw personaNotFound(id);
    const expected = await expectedVersions(ifMatch, () => this.personas.get(actor.accountId, id));
    const outcome = await this.history.restore({ ...actor, at: new Date().toISOString() }, id, version, expected);
    if (outcome.status === 'restored') return toRecord(outcome.row);
    throw this.missError(outcome, id, { version });
  }

  async labels(accountId: string, id: string): Promise<PersonaLabels> {
    await this.personas.get(accountId, id);
    const labels: PersonaLabels = {};
    for (const { label, version } of await this.history.labels(id)) labels[label] = version;
    return labels;
  }

  /** `gate` (LabelPolicies.gate) admits the move in its transaction; the evaluation it names is recorded in the audit event. */
  async setLabel(actor: Actor, id: string, label: string, version: number, ifMatch: string | undefined, gate: LabelGate): Promise<PersonaLabels> {
    if (!isPersonaId(id)) throw personaNotFound(id);
    checkLabelName(label, { allowLatest: false });
    const expected = await expectedVersions(ifMatch, () => this.personas.get(actor.accountId, id));
    let outcome;
    try {
      outcome = await this.history.setLabel({ ...actor, at: new Date().toISOString() }, id, label, version, gate, expected);
    } catch (error) {
      if (error instanceof LabelRefused) await this.refused(actor, { personaId: id, label, version, reason: error.message });
      throw error;
    }
    if (outcome.status !== 'done') throw this.missError(outcome, id, { version, label });
    return this.labels(actor.accountId, id);
  }

  async removeLabel(actor: Actor, id: string, label: string, ifMatch: string | undefined, gate: LabelGate): Promise<void> {
    if (!isPersonaId(id)) throw personaNotFound(id);
    checkLabelName(label, { allowLatest: false });
    const expected = await expectedVersions(ifMatch, () => this.personas.get(actor.accountId, id));
    const outcome = await this.history.removeLabel({ ...actor, at: new Date().toISOString() }, id, label, gate, expected);
    if (outcome.status !== 'done') throw this.missError(outcome, id, { label });
  }

  /**
   * The version a refine or check uses: the pinned one, or null for the
   * newest (the caller reads the persona itself, its hottest path).
   */
  async pinned(accountId: string, id: string, pin: PersonaPin): Promise<VersionRecord | null> {
    const { personaVersion, personaLabel } = pin;
    if (personaVersion !== undefined && personaLabel !== undefined) {
      throw invalidRequest('give personaVersion or personaLabel, not both');
    }
    if (personaLabel !== undefined) checkLabelName(personaLabel, { allowLatest: true });
    if (personaVersion === undefined && (personaLabel === undefined || personaLabel === LATEST_LABEL)) return null;
    if (!isPersonaId(id)) throw personaNotFound(id);
    const row =
      personaVersion !== undefined
        ? await this.history.findVersion(accountId, id, personaVersion)
        : await this.history.findLabelled(accountId, id, personaLabel as string);
    if (row) return toVersionRecord(row);
    await this.personas.get(accountId, id);
    throw personaVersion !== undefined ? versionNotFound(id, personaVersion) : labelNotFound(id, personaLabel as string);
  }

  private missError(miss: HistoryMiss, id: string, what: { version?: number; label?: string }): Error {
    switch (miss.status) {
      case 'persona_not_found':
        return personaNotFound(id);
      case 'version_mismatch':
        return mismatch();
      case 'version_not_found':
        return versionNotFound(id, what.version as number);
      case 'label_not_found':
        return labelNotFound(id, what.label as string);
    }
  }
}
