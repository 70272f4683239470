/** Reading an account's usage: the day range rules, and fresh numbers from this instance. */
import { invalidRequest } from '../errors.js';
import type { UsageRepository, UsageRow } from '../storage/usage-repository.js';
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

/** A longer range is a report, not a dashboard query: ask for it in pieces. */
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

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

function parseDay(name: string, value: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const time = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!match || new Date(time).toISOString().slice(0, 10) !== value) {
    throw invalidRequest(`${name} must be a date as YYYY-MM-DD (UTC), e.g. 2026-11-01`);
  }
  return time;
}

export class UsageService {
  constructor(
    private readonly repository: UsageRepository,
    private readonly recorder: UsageRecorder,
  ) {}

  async list(accountId: string, range: { from?: string; to?: string; groupBy?: 'key' }, now = new Date()): Promise<UsageAnswerRow[]> {
    const today = now.toISOString().slice(0, 10);
    const to = range.to ?? today;
    const from = range.from ?? `${today.slice(0, 8)}01`;
    const days = (parseDay('to', to) - parseDay('from', from)) / DAY_MS + 1;
    if (days < 1) throw invalidRequest('from must not be after to');
    if (days > MAX_DAYS) throw invalidRequest(`the range from..to must span at most ${MAX_DAYS} days`);
    // This instance's counts not yet written are written first, so a caller reads its own refines.
    await this.recorder.flush();
    const rows = range.groupBy === 'key' ? await this.repository.listByKey(accountId, from, to) : await this.repository.list(accountId, from, to);
    return rows.map(answerRow);
  }
}
