/**
 * Each persona's retention policy for the review queue (docs/quality.md, "The review queue"),
 * cached in memory so an answer is held or let go without a database read. A PUT on this
 * instance replaces its entry at once; another instance reads the policy again once its entry
 * is `POLICY_TTL_MS` old, so it follows a change within that much time.
 */
import type { Clock } from '../clock.js';
import type { ReviewRepository } from '../storage/review-repository.js';

export const KEEP = ['none', 'belowMinScore', 'flagged', 'all'] as const;
export type Keep = (typeof KEEP)[number];

export interface RetentionPolicy {
  keep: Keep;
  /** How long a kept answer stays, 1–90. */
  days: number;
}

export const RETENTION_DAYS_MAX = 90;
export const DEFAULT_RETENTION: RetentionPolicy = { keep: 'none', days: 30 };
export const POLICY_TTL_MS = 10_000;
/** Entries for this many personas at most; the oldest read goes first. */
const CACHED_MAX = 100_000;

const keyOf = (accountId: string, personaId: string) => `${accountId}\u0000${personaId}`;

export class RetentionPolicies {
  private readonly cache = new Map<string, { policy: RetentionPolicy; readAt: number }>();

  constructor(
    private readonly repository: ReviewRepository,
    private readonly clock: Clock,
  ) {}

  /** The cached policy while fresh; undefined when it must be read. */
  cached(accountId: string, personaId: string): RetentionPolicy | undefined {
    const entry = this.cache.get(keyOf(accountId, personaId));
    return entry && this.clock.now() - entry.readAt < POLICY_TTL_MS ? entry.policy : undefined;
  }

  /** The policies of these personas, reading the ones not fresh in the cache with one query. */
  async of(personas: readonly { accountId: string; personaId: string }[]): Promise<(accountId: string, personaId: string) => RetentionPolicy> {
    const stale = personas.filter(({ accountId, personaId }) => this.cached(accountId, personaId) === undefined);
    if (stale.length > 0) {
      const rows = await this.repository.policies([...new Set(stale.map((p) => p.personaId))]);
      const read = new Map(rows.map((row) => [keyOf(row.account_id, row.persona_id), { keep: row.keep, days: Number(row.days) }]));
      for (const { accountId, personaId } of stale) this.remember(accountId, personaId, read.get(keyOf(accountId, personaId)) ?? DEFAULT_RETENTION);
    }
    return (accountId, personaId) => this.cache.get(keyOf(accountId, personaId))?.policy ?? DEFAULT_RETENTION;
  }

  /** Read from the database, not the cache: what a GET answers. */
  async read(accountId: string, personaId: string): Promise<RetentionPolicy> {
    const row = await this.repository.policy(accountId, personaId);
    const policy = row ? { keep: row.keep, days: Number(row.days) } : DEFAULT_RETENTION;
    this.remember(accountId, personaId, policy);
    return policy;
  }

  async set(accountId: string, personaId: string, policy: RetentionPolicy): Promise<void> {
    await this.repository.setPolicy({ account_id: accountId, persona_id: personaId, keep: policy.keep, days: policy.days, updated_at: new Date(this.clock.now()).toISOString() });
    this.remember(accountId, personaId, policy);
  }

  private remember(accountId: string, personaId: string, policy: RetentionPolicy): void {
    const key = keyOf(accountId, personaId);
    this.cache.delete(key);
    if (this.cache.size >= CACHED_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { policy, readAt: this.clock.now() });
  }
}
