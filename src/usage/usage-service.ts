/** Reading an account's usage: the day range rules, and fresh numbers from this instance. */
import type { UsageRepository, UsageRow } from '../storage/usage-repository.js';
import { checkedDayRange } from './day-range.js';
import type { UsageEndpoint } from './request-usage.js';
import type { UsageRecorder } from './usage-recorder.js';

/** One day's counts for one provider and model (and key, when grouped by key), as GET /v1/usage answers them. */
export interface UsageAnswerRow {
  day: string;
  provider: string;
  /** null for the `rules` provider, which has no model. */
  model: string | null;
  /** `refine` (refines, checks, evaluations) or `chat` (chat completions). */
  endpoint: UsageEndpoint;
  refines: number;
  failures: number;
  cacheHits: number;
  providerCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Only when grouped by key; null for counts from before keys were tracked. */
  keyId?: string | null;
}

/**
 * The `rules` provider has no model: stored as '' (the model is part of a row's key), answered
 * as null, as GET /v1/providers gives its defaultModel.
 */
const answerRow = (row: UsageRow): UsageAnswerRow => {
  const { keyId, ...rest } = row;
  const answer: UsageAnswerRow = { ...rest, model: row.model === '' ? null : row.model };
  if (keyId !== undefined) answer.keyId = keyId === '' ? null : keyId;
  return answer;
};

export class UsageService {
  constructor(
    private readonly repository: UsageRepository,
    private readonly recorder: UsageRecorder,
  ) {}

  async list(accountId: string, range: { from?: string; to?: string; groupBy?: 'key' }, now = new Date()): Promise<UsageAnswerRow[]> {
    const today = now.toISOString().slice(0, 10);
    const to = range.to ?? today;
    const from = range.from ?? `${today.slice(0, 8)}01`;
    checkedDayRange(from, to);
    // This instance's counts not yet written are written first, so a caller reads its own refines.
    await this.recorder.flush();
    const rows = range.groupBy === 'key' ? await this.repository.listByKey(accountId, from, to) : await this.repository.list(accountId, from, to);
    return rows.map(answerRow);
  }
}
