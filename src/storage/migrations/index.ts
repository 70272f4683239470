import type { Migration } from 'kysely';
import { initial } from './2026-11-22-001-initial.js';
import { idempotency } from './2026-11-22-002-idempotency.js';
import { usageAndCache } from './2026-11-23-015-usage-and-cache.js';
import { personaHistory } from './2026-11-23-016-persona-history.js';
import { keysAndScopes } from './2026-11-25-027-keys-and-scopes.js';
import { evaluations } from './2026-11-27-030-evaluations.js';
import { keyAncestors } from './2026-11-28-034-key-ancestors.js';
import { evalErrored } from './2026-11-28-035-eval-errored.js';
import { idempotencyScopes } from './2026-11-28-036-idempotency-scopes.js';
import { usageEndpoints } from './2026-11-28-037-usage-endpoints.js';
import { qualityAndFeedback } from './2026-11-28-038-quality-and-feedback.js';
import { reviewQueue } from './2026-11-28-039-review-queue.js';
import { qualityTokens } from './2026-11-28-040-quality-tokens.js';
import { webhooks } from './2026-11-28-041-webhooks.js';
import { evalVariant } from './2026-11-28-042-eval-variant.js';

/** Timestamped names: Kysely runs them in name order, on SQLite and PostgreSQL alike. */
export const migrations: Record<string, Migration> = {
  '2026-11-22-001-initial': initial,
  '2026-11-22-002-idempotency': idempotency,
  '2026-11-23-015-usage-and-cache': usageAndCache,
  '2026-11-23-016-persona-history': personaHistory,
  '2026-11-25-027-keys-and-scopes': keysAndScopes,
  '2026-11-27-030-evaluations': evaluations,
  '2026-11-28-034-key-ancestors': keyAncestors,
  '2026-11-28-035-eval-errored': evalErrored,
  '2026-11-28-036-idempotency-scopes': idempotencyScopes,
  '2026-11-28-037-usage-endpoints': usageEndpoints,
  '2026-11-28-038-quality-and-feedback': qualityAndFeedback,
  '2026-11-28-039-review-queue': reviewQueue,
  '2026-11-28-040-quality-tokens': qualityTokens,
  '2026-11-28-041-webhooks': webhooks,
  '2026-11-28-042-eval-variant': evalVariant,
};
