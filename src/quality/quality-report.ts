/** Reading a persona's quality on live traffic (GET /v1/personas/{id}/quality): by day or by version. */
import type { Clock } from '../clock.js';
import type { PersonaService } from '../personas/persona-service.js';
import type { QualityRepository, QualityRow } from '../storage/quality-repository.js';
import { checkedDayRange, daysBefore } from '../usage/day-range.js';
import type { QualityRecorder } from './quality-recorder.js';

/** Without `from`, the last 30 days (today included). */
export const DEFAULT_QUALITY_DAYS = 30;

export interface QualityAnswerRow {
  day?: string;
  version?: number;
  answers: number;
  /** null when the row has feedback but no answers (their answers were counted before the range's data, or lost with a crashed instance's last interval). */
  meanScore: number | null;
  belowMinScore: number;
  withRequiredFindings: number;
  findings: Record<string, number>;
  feedback: { up: number; down: number };
  tokens: { input: number; output: number };
}

export interface QualityQuery {
  from?: string;
  to?: string;
  groupBy?: 'day' | 'version';
}

type Totals = Omit<QualityRow, 'day' | 'version'>;

function summed(rows: QualityRow[]): Totals {
  const total: Totals = { answers: 0, scoreSum: 0, belowMinScore: 0, withRequiredFindings: 0, feedbackUp: 0, feedbackDown: 0, inputTokens: 0, outputTokens: 0, findings: {} };
  for (const row of rows) {
    total.answers += row.answers;
    total.scoreSum += row.scoreSum;
    total.belowMinScore += row.belowMinScore;
    total.withRequiredFindings += row.withRequiredFindings;
    total.feedbackUp += row.feedbackUp;
    total.feedbackDown += row.feedbackDown;
    total.inputTokens += row.inputTokens;
    total.outputTokens += row.outputTokens;
    for (const [rule, n] of Object.entries(row.findings)) total.findings[rule] = (total.findings[rule] ?? 0) + n;
  }
  return total;
}

const answerOf = (totals: Totals): Omit<QualityAnswerRow, 'day' | 'version'> => ({
  answers: totals.answers,
  // Two decimals: a mean of whole scores, not a false precision.
  meanScore: totals.answers === 0 ? null : Math.round((100 * totals.scoreSum) / totals.answers) / 100,
  belowMinScore: totals.belowMinScore,
  withRequiredFindings: totals.withRequiredFindings,
  findings: totals.findings,
  feedback: { up: totals.feedbackUp, down: totals.feedbackDown },
  tokens: { input: totals.inputTokens, output: totals.outputTokens },
});

/** Groups rows (ordered by `key`) into one total per key, in that order. */
function grouped<K extends string | number>(rows: QualityRow[], key: (row: QualityRow) => K): [K, Totals][] {
  const groups = new Map<K, QualityRow[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return [...groups].map(([k, group]) => [k, summed(group)]);
}

export class QualityReport {
  constructor(
    private readonly repository: QualityRepository,
    private readonly recorder: QualityRecorder,
    private readonly personas: PersonaService,
    private readonly clock: Clock,
  ) {}

  async list(accountId: string, personaId: string, query: QualityQuery): Promise<QualityAnswerRow[]> {
    const now = this.clock.now();
    const { from, to } = checkedDayRange(query.from ?? daysBefore(now, DEFAULT_QUALITY_DAYS - 1), query.to ?? daysBefore(now, 0));
    // 404 for an unknown persona or another account's, before any numbers.
    await this.personas.get(accountId, personaId);
    // This instance's counts not yet written are written first, so a caller reads its own answers.
    await this.recorder.flush();
    const rows = await this.repository.list(accountId, personaId, from, to);
    if (query.groupBy === 'version') {
      return grouped(rows, (row) => row.version).sort(([a], [b]) => a - b).map(([version, totals]) => ({ version, ...answerOf(totals) }));
    }
    return grouped(rows, (row) => row.day).map(([day, totals]) => ({ day, ...answerOf(totals) }));
  }
}
