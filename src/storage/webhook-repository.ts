/**
 * Webhook endpoints, and the deliveries the instances claim (docs/webhooks.md). The events
 * themselves are written by the changes that cause them (webhook-outbox.ts).
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Engine } from './database.js';
import { recordWebhookEvent, type OutboxEntry } from './webhook-outbox.js';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  attempts: number;
  body: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
}

export type AttemptOutcome =
  | { delivered: true; statusCode: number; at: string }
  | { delivered: false; statusCode: number | null; error: string; at: string; nextAttemptAt: string | undefined; disableIfFailingSince: string };

const DISABLED_ERROR = 'endpoint disabled after five days of failed deliveries';

export class WebhookRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  /** Inserts the endpoint unless the account already has `cap`; false when it has. */
  async insertWithinCap(row: WebhookEndpointRow, cap: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // The account's row lock queues concurrent creations, so the cap holds across instances.
      await trx.updateTable('accounts').set((eb) => ({ name: eb.ref('name') })).where('id', '=', row.account_id).execute();
      const { count } = await trx
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('account_id', '=', row.account_id)
        .executeTakeFirstOrThrow();
      if (Number(count) >= cap) return false;
      await trx.insertInto('webhook_endpoints').values(row).execute();
      return true;
    });
  }

  list(accountId: string): Promise<WebhookEndpointRow[]> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  }

  get(accountId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  }

  /** Applies the changes; re-enabling also forgets the failures that disabled it. */
  async update(accountId: string, id: string, changes: Updateable<WebhookEndpointsTable>): Promise<WebhookEndpointRow | undefined> {
    return this.db
      .updateTable('webhook_endpoints')
      .set(changes.disabled === 0 ? { ...changes, failing_since: null } : changes)
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** The endpoint and its deliveries; false when there was none. */
  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx.deleteFrom('webhook_endpoints').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
      return true;
    });
  }

  /** A test event for one endpoint; undefined when the endpoint is gone or disabled. */
  async sendTest(entry: OutboxEntry & { endpointId: string }): Promise<WebhookDeliveryRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const eventId = await recordWebhookEvent(trx, entry);
      if (eventId === undefined) return undefined;
      return trx.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirst();
    });
  }

  /** An event outside any other change (a refused label move, a budget threshold). */
  async record(entry: OutboxEntry): Promise<void> {
    await recordWebhookEvent(this.db, entry);
  }

  listDeliveries(accountId: string, endpointId: string, page: { beforeId?: string; limit: number }): Promise<WebhookDeliveryRow[]> {
    let query = this.db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', accountId).where('endpoint_id', '=', endpointId);
    if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  }

  /** Enabled endpoints with deliveries due and not leased, the longest waiting first (a paused endpoint's wait until it is enabled). */
  async dueEndpoints(now: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
      .select('webhook_deliveries.endpoint_id')
      .where('webhook_endpoints.disabled', '=', 0)
      .where('webhook_deliveries.status', '=', 'pending')
      .where('webhook_deliveries.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('webhook_deliveries.lease_until', 'is', null), eb('webhook_deliveries.lease_until', '<', now)]))
      .groupBy('webhook_deliveries.endpoint_id')
      .orderBy((eb) => eb.fn.min('webhook_deliveries.next_attempt_at'))
      .limit(limit)
      .execute();
    return rows.map((row) => row.endpoint_id);
  }

  /**
   * Leases up to `limit` of an endpoint's due deliveries to `owner` until `leaseUntil`. The rows
   * are picked first (on PostgreSQL FOR UPDATE SKIP LOCKED, so instances claiming at once take
   * different ones), then leased by id with the condition checked again on each row, so two
   * instances never both get one. As one UPDATE with a subquery, PostgreSQL may apply the LIMIT
   * per rescan and lease more, and SQLite plans the UPDATE over every pending row.
   */
  async claim(endpointId: string, now: string, leaseUntil: string, owner: string, limit: number): Promise<ClaimedDelivery[]> {
    const lease = async (db: Kysely<Database>) => {
      let due = db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .orderBy('next_attempt_at')
        .limit(limit);
      if (this.engine === 'postgres') due = due.forUpdate().skipLocked();
      const ids = (await due.execute()).map((row) => row.id);
      if (ids.length === 0) return [];
      return db
        .updateTable('webhook_deliveries')
        .set({ lease_until: leaseUntil, lease_owner: owner })
        .where('id', 'in', ids)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returning(['id', 'event_id', 'attempts'])
        .execute();
    };
    const claimed = this.engine === 'postgres' ? await this.db.transaction().execute(lease) : await lease(this.db);
    if (claimed.length === 0) return [];
    const endpoint = await this.db
      .selectFrom('webhook_endpoints')
      .select(['url', 'secret', 'previous_secret', 'previous_secret_expires_at', 'disabled'])
      .where('id', '=', endpointId)
      .executeTakeFirst();
    const events = await this.db
      .selectFrom('webhook_events')
      .select(['id', 'body'])
      .where('id', 'in', claimed.map((row) => row.event_id))
      .execute();
    const bodies = new Map(events.map((event) => [event.id, event.body]));
    if (endpoint === undefined || endpoint.disabled === 1) {
      // Deleted or disabled between the look and the lease: nothing is sent, the lease lapses.
      return [];
    }
    return claimed.flatMap((row) => {
      const body = bodies.get(row.event_id);
      return body === undefined
        ? []
        : [{
            id: row.id,
            eventId: row.event_id,
            endpointId,
            attempts: row.attempts,
            body,
            url: endpoint.url,
            secret: endpoint.secret,
            previousSecret: endpoint.previous_secret,
            previousSecretExpiresAt: endpoint.previous_secret_expires_at,
          }];
    });
  }

  /**
   * Records an attempt of a delivery this owner still holds. A failure starts (or continues) the
   * endpoint's failing streak; a streak begun before `disableIfFailingSince` disables it, and its
   * other pending deliveries fail with it. Answers true when the endpoint was disabled now.
   */
  async recordAttempt(delivery: { id: string; endpointId: string }, owner: string, outcome: AttemptOutcome): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const base = trx
        .updateTable('webhook_deliveries')
        .where('id', '=', delivery.id)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'pending');
      if (outcome.delivered) {
        const updated = await base
          .set((eb) => ({ status: 'delivered', attempts: eb('attempts', '+', 1), last_status_code: outcome.statusCode, last_error: null, next_attempt_at: null, lease_until: null }))
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) > 0) {
          // Written only when a failing streak ends: a healthy endpoint's successes write nothing here.
          await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', delivery.endpointId).where('failing_since', 'is not', null).execute();
        }
        return false;
      }
      const updated = await base
        .set((eb) => ({
          status: outcome.nextAttemptAt === undefined ? 'failed' : 'pending',
          attempts: eb('attempts', '+', 1),
          last_status_code: outcome.statusCode,
          last_error: outcome.error,
          next_attempt_at: outcome.nextAttemptAt ?? null,
          lease_until: null,
        }))
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: outcome.at })
        .where('id', '=', delivery.endpointId)
        .where('failing_since', 'is', null)
        .execute();
      const disabled = await trx
        .updateTable('webhook_endpoints')
        .set({ disabled: 1 })
        .where('id', '=', delivery.endpointId)
        .where('disabled', '=', 0)
        .where('failing_since', '<=', outcome.disableIfFailingSince)
        .executeTakeFirst();
      if (Number(disabled.numUpdatedRows) === 0) return false;
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', last_error: DISABLED_ERROR, next_attempt_at: null, lease_until: null })
        .where('endpoint_id', '=', delivery.endpointId)
        .where('status', '=', 'pending')
        .execute();
      return true;
    });
  }

  /** Deliveries and events older than `before` go (docs/webhooks.md, "Retention"). */
  async prune(before: string): Promise<void> {
    await this.db.deleteFrom('webhook_deliveries').where('created_at', '<', before).where('status', '!=', 'pending').execute();
    await this.db
      .deleteFrom('webhook_events')
      .where('created_at', '<', before)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_deliveries').select('id').whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id'))))
      .execute();
  }
}
