/**
 * Daily usage counters. Every write is an upsert that adds to the stored
 * numbers inside the database, so any number of instances can count into the
 * same row without a read-modify-write race.
 */
import type { Kysely, Selectable } from 'kysely';
import type { UsageEndpoint } from '../usage/request-usage.js';
import type { Database, UsageDailyTable } from './schema.js';

export interface UsageKey {
  accountId: string;
  /** The API key that refined; '' when unknown (counted outside a request, or before keys were tracked). */
  keyId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  provider: string;
  model: string;
  endpoint: UsageEndpoint;
}

export interface UsageCounts {
  refines: number;
  failures: number;
  cacheHits: number;
  providerCalls: number;
  inputTokens: number;
  outputTokens: number;
}

export type UsageIncrement = UsageKey & UsageCounts;
export type UsageRow = Omit<UsageKey, 'accountId' | 'keyId'> & UsageCounts & { keyId?: string };

const sum = (a: UsageCounts, b: UsageCounts): UsageCounts => ({
  refines: a.refines + b.refines,
  failures: a.failures + b.failures,
  cacheHits: a.cacheHits + b.cacheHits,
  providerCalls: a.providerCalls + b.providerCalls,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});

/** One increment per account × day × provider × model × endpoint (PostgreSQL updates a row once per statement), in a stable order. */
function perAccountRow(increments: UsageIncrement[]): UsageIncrement[] {
  const rows = new Map<string, UsageIncrement>();
  for (const i of increments) {
    const id = `${i.accountId}\u0000${i.day}\u0000${i.provider}\u0000${i.model}\u0000${i.endpoint}`;
    const seen = rows.get(id);
    rows.set(id, seen ? { ...seen, ...sum(seen, i) } : { ...i, keyId: '' });
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

export class UsageRepository {
  constructor(
    private readonly db: Kysely<Database>,
    /** The split by key could not be written: those counts are missing from groupBy=key only. */
    private readonly onKeyRowsLost: (error: unknown) => void = () => {},
  ) {}

  /**
   * Adds the increments (one statement per table). Callers pass each key at most once
   * (PostgreSQL refuses to update a row twice in one statement) and in a stable
   * order, so two instances flushing the same rows lock them in the same order.
   */
  async add(increments: UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    const values = (i: UsageIncrement) => ({
      account_id: i.accountId,
      day: i.day,
      provider: i.provider,
      model: i.model,
      endpoint: i.endpoint,
      refines: i.refines,
      failures: i.failures,
      cache_hits: i.cacheHits,
      provider_calls: i.providerCalls,
      input_tokens: i.inputTokens,
      output_tokens: i.outputTokens,
    });
    // Two statements, not a transaction: SQLite's busy wait blocks the event loop, so a transaction held
    // across an await by one connection deadlocks another in the same process. The account's rows
    // are the authority; the split by key is written after them, and a failure there is only reported.
    {
      await this.db
        .insertInto('usage_daily')
        .values(perAccountRow(increments).map(values))
        .onConflict((oc) =>
          oc.columns(['account_id', 'day', 'provider', 'model', 'endpoint']).doUpdateSet((eb) => ({
            refines: eb('usage_daily.refines', '+', eb.ref('excluded.refines')),
            failures: eb('usage_daily.failures', '+', eb.ref('excluded.failures')),
            cache_hits: eb('usage_daily.cache_hits', '+', eb.ref('excluded.cache_hits')),
            provider_calls: eb('usage_daily.provider_calls', '+', eb.ref('excluded.provider_calls')),
            input_tokens: eb('usage_daily.input_tokens', '+', eb.ref('excluded.input_tokens')),
            output_tokens: eb('usage_daily.output_tokens', '+', eb.ref('excluded.output_tokens')),
          })),
        )
        .execute();
    }
    // The same counts split by key (GET /v1/usage?groupBy=key).
    try {
      await this.db
        .insertInto('usage_daily_keys')
        .values(increments.map((i) => ({ ...values(i), key_id: i.keyId })))
        .onConflict((oc) =>
          oc.columns(['account_id', 'day', 'provider', 'model', 'endpoint', 'key_id']).doUpdateSet((eb) => ({
            refines: eb('usage_daily_keys.refines', '+', eb.ref('excluded.refines')),
            failures: eb('usage_daily_keys.failures', '+', eb.ref('excluded.failures')),
            cache_hits: eb('usage_daily_keys.cache_hits', '+', eb.ref('excluded.cache_hits')),
            provider_calls: eb('usage_daily_keys.provider_calls', '+', eb.ref('excluded.provider_calls')),
            input_tokens: eb('usage_daily_keys.input_tokens', '+', eb.ref('excluded.input_tokens')),
            output_tokens: eb('usage_daily_keys.output_tokens', '+', eb.ref('excluded.output_tokens')),
          })),
        )
        .execute();
    } catch (error) {
      this.onKeyRowsLost(error);
    }
  }

  /** Days `from` to `to` inclusive, ordered by day, provider, model. */
  async list(accountId: string, from: string, to: string): Promise<UsageRow[]> {
    const rows = await this.db
      .selectFrom('usage_daily')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .orderBy('day')
      .orderBy('provider')
      .orderBy('model')
      .orderBy('endpoint')
      .execute();
    return rows.map(toRow);
  }

  /** As list, one row per key too (key '' = counted before keys were tracked), ordered by day, provider, model, key. */
  async listByKey(accountId: string, from: string, to: string): Promise<UsageRow[]> {
    const rows = await this.db
      .selectFrom('usage_daily_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .orderBy('day')
      .orderBy('provider')
      .orderBy('model')
      .orderBy('endpoint')
      .orderBy('key_id')
      .execute();
    return rows.map((row) => ({ ...toRow(row), keyId: row.key_id }));
  }
}

function toRow(row: Selectable<UsageDailyTable>): UsageRow {
  return {
    day: row.day,
    provider: row.provider,
    model: row.model,
    endpoint: row.endpoint as UsageEndpoint,
    refines: Number(row.refines),
    failures: Number(row.failures),
    cacheHits: Number(row.cache_hits),
    providerCalls: Number(row.provider_calls),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
  };
}
