/**
 * The answer log (which persona version answered which request, 30 days) and the feedback given
 * on those answers (docs/quality.md, "Feedback"). Identifiers and times only in the log.
 */
import type { Kysely, Selectable } from 'kysely';
import type { QualityEndpoint } from '../usage/request-usage.js';
import type { Engine } from './database.js';
import { dropRowsOfDeletedPersonas, rowsOfExistingPersonas } from './deleted-personas.js';
import type { Database, FeedbackTable } from './schema.js';

export interface LoggedAnswer {
  accountId: string;
  requestId: string;
  keyId: string;
  personaId: string;
  version: number;
  endpoint: QualityEndpoint;
  /** ISO 8601, UTC. */
  answeredAt: string;
}

export type FeedbackRow = Selectable<FeedbackTable>;

export class FeedbackRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  /**
   * Writes answers to the log; a request id seen before (a client may send its own X-Request-Id
   * twice) names its newest answer. Callers pass each account × request id once. Answers of a
   * persona no longer there are dropped.
   */
  async log(answers: LoggedAnswer[]): Promise<void> {
    if (answers.length === 0) return;
    const kept = await rowsOfExistingPersonas(this.db, answers);
    if (kept.length === 0) return;
    await this.db
      .insertInto('answer_log')
      .values(kept.map((a) => ({
        account_id: a.accountId, request_id: a.requestId, key_id: a.keyId, persona_id: a.personaId, version: a.version, endpoint: a.endpoint, answered_at: a.answeredAt,
      })))
      .onConflict((oc) =>
        oc.columns(['account_id', 'request_id']).doUpdateSet((eb) => ({
          key_id: eb.ref('excluded.key_id'),
          persona_id: eb.ref('excluded.persona_id'),
          version: eb.ref('excluded.version'),
          endpoint: eb.ref('excluded.endpoint'),
          answered_at: eb.ref('excluded.answered_at'),
        })),
      )
      .execute();
    await dropRowsOfDeletedPersonas(this.db, this.engine, ['answer_log'], kept);
  }

  /** The account's answer to the request, if answered at or after `since` (ISO 8601). */
  async answer(accountId: string, requestId: string, since: string): Promise<LoggedAnswer | undefined> {
    const row = await this.db
      .selectFrom('answer_log')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('request_id', '=', requestId)
      .where('answered_at', '>=', since)
      .executeTakeFirst();
    return row && {
      accountId: row.account_id, requestId: row.request_id, keyId: row.key_id, personaId: row.persona_id,
      version: Number(row.version), endpoint: row.endpoint as QualityEndpoint, answeredAt: row.answered_at,
    };
  }

  /** Removes the log's answers older than `before` (ISO 8601): feedback can no longer name them. */
  async prune(before: string): Promise<void> {
    await this.db.deleteFrom('answer_log').where('answered_at', '<', before).execute();
  }

  /**
   * Takes the request's feedback away, answering what it was: a replacement first removes the
   * feedback it replaces, so every rating counted is one that was stored.
   */
  async remove(accountId: string, requestId: string): Promise<FeedbackRow | undefined> {
    return this.db.deleteFrom('feedback').where('account_id', '=', accountId).where('request_id', '=', requestId).returningAll().executeTakeFirst();
  }

  /** Stores a feedback; rejects with the engine's unique violation when the request already has one. */
  async insert(row: FeedbackRow): Promise<void> {
    await this.db.insertInto('feedback').values(row).execute();
  }

  /** Newest first, before the cursor (a feedback id, time-ordered). */
  list(accountId: string, page: { personaId: string; rating?: 'up' | 'down'; beforeId?: string; limit: number }): Promise<FeedbackRow[]> {
    let query = this.db.selectFrom('feedback').selectAll().where('account_id', '=', accountId).where('persona_id', '=', page.personaId);
    if (page.rating !== undefined) query = query.where('rating', '=', page.rating);
    if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }
}
