/**
 * The outbox (docs/webhooks.md, "Delivery"): an event is written in the transaction of the
 * change that caused it, with one pending delivery per endpoint that subscribed to its type,
 * so a crash after the commit loses none and a rolled-back change sends none.
 */
import { EventEmitter } from 'node:events';
import type { Kysely, Transaction } from 'kysely';
import { uuidv7 } from '../ids.js';
import { subscribes, type WebhookEvent } from '../webhooks/webhook-events.js';
import type { Database } from './schema.js';

/** `msg_` + 32 hex digits, time-ordered like the other ids: the `webhook-id` every attempt sends. */
export const eventId = (uuid: string) => `msg_${uuid.replaceAll('-', '')}`;
export const deliveryId = (uuid: string) => `whd_${uuid.replaceAll('-', '')}`;

/** What a persona event carries, from its row. */
export const personaData = (row: { id: string; name: string; version: number }) => ({ id: row.id, name: row.name, version: row.version });

export function parseEvents(stored: string): string[] {
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

export interface OutboxEntry {
  accountId: string;
  event: WebhookEvent;
  /** ISO time of the change: the body's `timestamp`. */
  at: string;
  /** Events that must be sent once at most (a budget threshold per key and day) name themselves. */
  onceKey?: string;
  /** Only this endpoint, whatever it subscribed to (a test event). */
  endpointId?: string;
}

/** Writes the event and its deliveries; answers the event id, or undefined when no endpoint wants it (nothing is written). */
export async function recordWebhookEvent(trx: Transaction<Database> | Kysely<Database>, entry: OutboxEntry): Promise<string | undefined> {
  let query = trx.selectFrom('webhook_endpoints').select(['id', 'events']).where('account_id', '=', entry.accountId).where('disabled', '=', 0);
  if (entry.endpointId !== undefined) query = query.where('id', '=', entry.endpointId);
  const endpoints = (await query.orderBy('id').execute()).filter(
    (endpoint) => entry.endpointId !== undefined || subscribes(parseEvents(endpoint.events), entry.event.type),
  );
  if (endpoints.length === 0) return undefined;
  const id = eventId(uuidv7());
  const body = JSON.stringify({ type: entry.event.type, timestamp: entry.at, data: entry.event.data });
  const written = await trx
    .insertInto('webhook_events')
    .values({ id, account_id: entry.accountId, type: entry.event.type, body, created_at: entry.at, once_key: entry.onceKey ?? null })
    .onConflict((oc) => oc.column('once_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (written === undefined) return undefined;
  await trx
    .insertInto('webhook_deliveries')
    .values(
      endpoints.map((endpoint) => ({
        id: deliveryId(uuidv7()),
        event_id: id,
        endpoint_id: endpoint.id,
        account_id: entry.accountId,
        type: entry.event.type,
        status: 'pending' as const,
        attempts: 0,
        last_status_code: null,
        last_error: null,
        next_attempt_at: entry.at,
        lease_until: null,
        lease_owner: null,
        created_at: entry.at,
      })),
    )
    .execute();
  outboxWrites.emit('written');
  return id;
}

/**
 * Told of every event written by this process, usually before its transaction commits: the
 * dispatcher looks a moment later instead of at its next poll (the poll still finds it otherwise).
 */
export const outboxWrites = new EventEmitter();
outboxWrites.setMaxListeners(0);
