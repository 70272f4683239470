/**
 * Daily usage counters. Every write is an upsert that adds to the stored
 * numbers inside the database, so any number of instances can count into the
 * same row without a read-modify-write race.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface UsageKey {
  accountId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  provider: string;
  model: string;
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
export type UsageRow = Omit<UsageKey, 'accountId'> & UsageCounts;

export class UsageRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Adds the increments in one statement. Callers pass each key at most once
   * (PostgreSQL refuses to update a row twice in one statement) and in a stable
   * order, so two instances flushing the same rows lock them in the same order.
   */
  async add(increments: UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    await this.db
      .insertInto('usage_daily')
      .values(
        increments.map((i) => ({
          account_id: i.accountId,
          day: i.day,
          provider: i.provider,
          model: i.model,
          refines: i.refines,
          failures: i.failures,
          cache_hits: i.cacheHits,
          provider_calls: i.providerCalls,
          input_tokens: i.inputTokens,
          output_tokens: i.outputTokens,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['account_id', 'day', 'provider', 'model']).doUpdateSet((eb) => ({
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
      .execute();
    return rows.map((row) => ({
      day: row.day,
      provider: row.provider,
      model: row.model,
      refines: Number(row.refines),
      failures: Number(row.failures),
      cacheHits: Number(row.cache_hits),
      providerCalls: Number(row.provider_calls),
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
    }));
  }
}
