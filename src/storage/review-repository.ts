/**
 * The review queue's rows (docs/quality.md, "The review queue"): each persona's retention policy
 * and the answers kept under it. Every query is scoped by account.
 */
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import type { Database, ReviewPoliciesTable, ReviewsTable } from './schema.js';

export type ReviewPolicyRow = Selectable<ReviewPoliciesTable>;
export type ReviewRow = Selectable<ReviewsTable>;
export type ReviewWithFeedback = ReviewRow & { rating: 'up' | 'down' | null; corrected_text: string | null; comment: string | null };

type Reviews = ExpressionBuilder<Database, 'reviews'>;

/** Rated `down`: a waiting answer under `flagged` is in the queue from then on. */
const flaggedDown = (eb: Reviews) =>
  eb.exists(
    eb.selectFrom('feedback').select(sql`1`.as('one'))
      .whereRef('feedback.account_id', '=', 'reviews.account_id')
      .whereRef('feedback.request_id', '=', 'reviews.request_id')
      .where('feedback.rating', '=', 'down'),
  );

/** In the queue: open, or waiting and rated down since. */
const isOpen = (eb: Reviews) => eb.or([eb('reviews.status', '=', 'open'), eb.and([eb('reviews.status', '=', 'waiting'), flaggedDown(eb)])]);

/** The persona's policy still keeps answers (it exists, and is not `none`). */
const keptByPolicy = (eb: Reviews) =>
  eb.exists(
    eb.selectFrom('review_policies').select(sql`1`.as('one'))
      .whereRef('review_policies.account_id', '=', 'reviews.account_id')
      .whereRef('review_policies.persona_id', '=', 'reviews.persona_id')
      .where('review_policies.keep', '!=', 'none'),
  );

export class ReviewRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async policy(accountId: string, personaId: string): Promise<ReviewPolicyRow | undefined> {
    return this.db.selectFrom('review_policies').selectAll().where('account_id', '=', accountId).where('persona_id', '=', personaId).executeTakeFirst();
  }

  /** The policies of these personas (a flush's), whatever their accounts; the caller matches accounts. */
  async policies(personaIds: string[]): Promise<ReviewPolicyRow[]> {
    if (personaIds.length === 0) return [];
    return this.db.selectFrom('review_policies').selectAll().where('persona_id', 'in', personaIds).execute();
  }

  /** Sets the policy; `none` also deletes every answer kept for the persona. */
  async setPolicy(row: ReviewPolicyRow): Promise<void> {
    await this.db
      .insertInto('review_policies')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'persona_id']).doUpdateSet({ keep: row.keep, days: row.days, updated_at: row.updated_at }))
      .execute();
    if (row.keep === 'none') {
      await this.db.deleteFrom('reviews').where('account_id', '=', row.account_id).where('persona_id', '=', row.persona_id).execute();
    }
  }

  /**
   * Writes kept answers (a request id sent twice keeps its newest answer), then removes any of
   * them whose persona no longer keeps answers: its policy was set to `none`, or the persona was
   * deleted, while this instance still held them.
   */
  async keep(rows: ReviewRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('reviews')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['account_id', 'request_id']).doUpdateSet((eb) => ({
          id: eb.ref('excluded.id'), persona_id: eb.ref('excluded.persona_id'), version: eb.ref('excluded.version'), endpoint: eb.ref('excluded.endpoint'),
          created_at: eb.ref('excluded.created_at'), content: eb.ref('excluded.content'), response: eb.ref('excluded.response'),
          score: eb.ref('excluded.score'), violations: eb.ref('excluded.violations'), status: eb.ref('excluded.status'), sample_id: null,
        })),
      )
      .execute();
    const personaIds = [...new Set(rows.map((row) => row.persona_id))];
    await this.db.deleteFrom('reviews').where('persona_id', 'in', personaIds).where((eb) => eb.not(keptByPolicy(eb))).execute();
  }

  /** Drops the persona's oldest kept answers beyond `max`: waiting ones first, then any. */
  async trim(accountId: string, personaId: string, max: number): Promise<void> {
    for (const waitingOnly of [true, false]) {
      const { count } = await this.db
        .selectFrom('reviews').select((eb) => eb.fn.countAll<string | number>().as('count'))
        .where('account_id', '=', accountId).where('persona_id', '=', personaId)
        .executeTakeFirstOrThrow();
      const excess = Number(count) - max;
      if (excess <= 0) return;
      let oldest = this.db.selectFrom('reviews').select('id').where('account_id', '=', accountId).where('persona_id', '=', personaId);
      if (waitingOnly) oldest = oldest.where('status', '=', 'waiting');
      const ids = (await oldest.orderBy('id', 'asc').limit(excess).execute()).map((row) => row.id);
      // In slices: PostgreSQL and SQLite both bound a statement's parameters.
      for (let i = 0; i < ids.length; i += 1_000) await this.db.deleteFrom('reviews').where('id', 'in', ids.slice(i, i + 1_000)).execute();
    }
  }

  /** Newest first, before the cursor (a review id, time-ordered), with the answer's feedback. */
  list(accountId: string, page: { personaId: string; status: 'open' | 'resolved'; beforeId?: string; limit: number }): Promise<ReviewWithFeedback[]> {
    let query = this.withFeedback()
      .where('reviews.account_id', '=', accountId)
      .where('reviews.persona_id', '=', page.personaId)
      .where((eb) => (page.status === 'open' ? isOpen(eb) : eb('reviews.status', '=', 'resolved')));
    if (page.beforeId !== undefined) query = query.where('reviews.id', '<', page.beforeId);
    return query.orderBy('reviews.id', 'desc').limit(page.limit).execute();
  }

  find(accountId: string, personaId: string, requestId: string): Promise<ReviewWithFeedback | undefined> {
    return this.withFeedback()
      .where('reviews.account_id', '=', accountId).where('reviews.persona_id', '=', personaId).where('reviews.request_id', '=', requestId)
      .executeTakeFirst();
  }

  /** Marks an open review resolved; false when there is none open (unknown, waiting unflagged, or resolved already). */
  async resolve(accountId: string, personaId: string, requestId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('reviews').set({ status: 'resolved' })
      .where('account_id', '=', accountId).where('persona_id', '=', personaId).where('request_id', '=', requestId)
      .where((eb) => isOpen(eb))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Back in the queue: adding its sample failed after it was marked resolved. */
  async reopen(accountId: string, requestId: string): Promise<void> {
    await this.db.updateTable('reviews').set({ status: 'open' }).where('account_id', '=', accountId).where('request_id', '=', requestId).execute();
  }

  async setSample(accountId: string, requestId: string, sampleId: string): Promise<void> {
    await this.db.updateTable('reviews').set({ sample_id: sampleId }).where('account_id', '=', accountId).where('request_id', '=', requestId).execute();
  }

  /**
   * The sweep: waiting answers rated down join the queue; the rest of them go after 24 h
   * (`waitingSince`); every kept answer goes after its persona's `days`, or at once when its
   * persona keeps nothing any more.
   */
  async sweep(now: number, waitingSince: string): Promise<void> {
    await this.db.updateTable('reviews').set({ status: 'open' }).where('status', '=', 'waiting').where((eb) => flaggedDown(eb)).execute();
    await this.db.deleteFrom('reviews').where('status', '=', 'waiting').where('created_at', '<', waitingSince).execute();
    await this.db.deleteFrom('reviews').where((eb) => eb.not(keptByPolicy(eb))).execute();
    // One statement per `days` in use (at most 90), not one per persona.
    const spans = await this.db.selectFrom('review_policies').select('days').distinct().where('keep', '!=', 'none').execute();
    for (const { days } of spans) {
      const before = new Date(now - Number(days) * 86_400_000).toISOString();
      await this.db.deleteFrom('reviews')
        .where('created_at', '<', before)
        .where((eb) =>
          eb.exists(
            eb.selectFrom('review_policies').select(sql`1`.as('one'))
              .whereRef('review_policies.account_id', '=', 'reviews.account_id')
              .whereRef('review_policies.persona_id', '=', 'reviews.persona_id')
              .where('review_policies.days', '=', Number(days)),
          ),
        )
        .execute();
    }
  }

  private withFeedback() {
    return this.db
      .selectFrom('reviews')
      .leftJoin('feedback', (join) => join.onRef('feedback.account_id', '=', 'reviews.account_id').onRef('feedback.request_id', '=', 'reviews.request_id'))
      .selectAll('reviews')
      .select(['feedback.rating', 'feedback.corrected_text', 'feedback.comment']);
  }
}
