/**
 * Daily quality aggregates (docs/quality.md). As usage_daily: every write is an upsert adding
 * inside the database, so instances count into the same rows without a read-modify-write race.
 */
import type { Kysely } from 'kysely';
import type { QualityEndpoint } from '../usage/request-usage.js';
import type { Engine } from './database.js';
import { dropOrphanRows, dropRowsOfDeletedPersonas, rowsOfExistingPersonas } from './deleted-personas.js';
import type { Database } from './schema.js';

export interface QualityKey {
  accountId: string;
  personaId: string;
  version: number;
  endpoint: QualityEndpoint;
  /** UTC day, YYYY-MM-DD. */
  day: string;
}

export interface QualityCounts {
  answers: number;
  scoreSum: number;
  belowMinScore: number;
  withRequiredFindings: number;
  feedbackUp: number;
  feedbackDown: number;
  /** Tokens the providers reported for the answers. */
  inputTokens: number;
  outputTokens: number;
  /** Findings by rule. */
  findings: Map<string, number>;
}

export type QualityIncrement = QualityKey & QualityCounts;

export interface QualityRow {
  day: string;
  version: number;
  answers: number;
  scoreSum: number;
  belowMinScore: number;
  withRequiredFindings: number;
  feedbackUp: number;
  feedbackDown: number;
  inputTokens: number;
  outputTokens: number;
  findings: Record<string, number>;
}

/** A row's key columns. */
const key = (i: QualityIncrement) => ({ account_id: i.accountId, persona_id: i.personaId, version: i.version, endpoint: i.endpoint, day: i.day });

const keyOf = (row: { day: string; version: number }) => `${row.day}\u0000${row.version}`;

export class QualityRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  /**
   * Adds the increments, one statement per table. Callers pass each key at most once and in a
   * stable order (PostgreSQL updates a row once per statement; instances lock rows in one order).
   * The counts of a persona no longer there are dropped: deleting it removed its rows.
   */
  async add(increments: QualityIncrement[]): Promise<void> {
    const kept = await rowsOfExistingPersonas(this.db, increments);
    if (kept.length === 0) return;
    await this.db
      .insertInto('quality_daily')
      .values(kept.map((i) => ({
        ...key(i), answers: i.answers, score_sum: i.scoreSum, below_min_score: i.belowMinScore,
        with_required_findings: i.withRequiredFindings, feedback_up: i.feedbackUp, feedback_down: i.feedbackDown,
        input_tokens: i.inputTokens, output_tokens: i.outputTokens,
      })))
      .onConflict((oc) =>
        oc.columns(['account_id', 'persona_id', 'version', 'endpoint', 'day']).doUpdateSet((eb) => ({
          answers: eb('quality_daily.answers', '+', eb.ref('excluded.answers')),
          score_sum: eb('quality_daily.score_sum', '+', eb.ref('excluded.score_sum')),
          below_min_score: eb('quality_daily.below_min_score', '+', eb.ref('excluded.below_min_score')),
          with_required_findings: eb('quality_daily.with_required_findings', '+', eb.ref('excluded.with_required_findings')),
          feedback_up: eb('quality_daily.feedback_up', '+', eb.ref('excluded.feedback_up')),
          feedback_down: eb('quality_daily.feedback_down', '+', eb.ref('excluded.feedback_down')),
          input_tokens: eb('quality_daily.input_tokens', '+', eb.ref('excluded.input_tokens')),
          output_tokens: eb('quality_daily.output_tokens', '+', eb.ref('excluded.output_tokens')),
        })),
      )
      .execute();
    await this.addFindings(kept);
    await dropRowsOfDeletedPersonas(this.db, this.engine, ['quality_daily', 'quality_findings_daily'], kept);
  }

  private async addFindings(kept: QualityIncrement[]): Promise<void> {
    const findings = kept.flatMap((i) => [...i.findings].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([rule, n]) => ({ ...key(i), rule, findings: n })));
    if (findings.length === 0) return;
    await this.db
      .insertInto('quality_findings_daily')
      .values(findings)
      .onConflict((oc) =>
        oc.columns(['account_id', 'persona_id', 'version', 'endpoint', 'day', 'rule']).doUpdateSet((eb) => ({
          findings: eb('quality_findings_daily.findings', '+', eb.ref('excluded.findings')),
        })),
      )
      .execute();
  }

  /** Days `from` to `to` inclusive, one row per day × version (the endpoints summed), ordered by day then version. */
  async list(accountId: string, personaId: string, from: string, to: string): Promise<QualityRow[]> {
    const rows = await this.db
      .selectFrom('quality_daily')
      .where('account_id', '=', accountId).where('persona_id', '=', personaId).where('day', '>=', from).where('day', '<=', to)
      .select((eb) => [
        'day', 'version',
        eb.fn.sum<number | string>('answers').as('answers'),
        eb.fn.sum<number | string>('score_sum').as('score_sum'),
        eb.fn.sum<number | string>('below_min_score').as('below_min_score'),
        eb.fn.sum<number | string>('with_required_findings').as('with_required_findings'),
        eb.fn.sum<number | string>('feedback_up').as('feedback_up'),
        eb.fn.sum<number | string>('feedback_down').as('feedback_down'),
        eb.fn.sum<number | string>('input_tokens').as('input_tokens'),
        eb.fn.sum<number | string>('output_tokens').as('output_tokens'),
      ])
      .groupBy(['day', 'version'])
      .orderBy('day')
      .orderBy('version')
      .execute();
    const findings = await this.db
      .selectFrom('quality_findings_daily')
      .where('account_id', '=', accountId).where('persona_id', '=', personaId).where('day', '>=', from).where('day', '<=', to)
      .select((eb) => ['day', 'version', 'rule', eb.fn.sum<number | string>('findings').as('findings')])
      .groupBy(['day', 'version', 'rule'])
      .orderBy('rule')
      .execute();
    const byKey = new Map<string, QualityRow>();
    const result = rows.map((row) => {
      const answer: QualityRow = {
        day: row.day, version: Number(row.version), answers: Number(row.answers), scoreSum: Number(row.score_sum),
        belowMinScore: Number(row.below_min_score), withRequiredFindings: Number(row.with_required_findings),
        feedbackUp: Number(row.feedback_up), feedbackDown: Number(row.feedback_down),
        inputTokens: Number(row.input_tokens), outputTokens: Number(row.output_tokens), findings: {},
      };
      byKey.set(keyOf(answer), answer);
      return answer;
    });
    for (const finding of findings) {
      const row = byKey.get(keyOf({ day: finding.day, version: Number(finding.version) }));
      if (row) row.findings[finding.rule] = Number(finding.findings);
    }
    return result;
  }

  /** Rows of personas deleted while another instance still held their counts (docs/quality.md, "Deleting a persona"). */
  async deleteOrphans(): Promise<void> {
    await dropOrphanRows(this.db, ['quality_daily', 'quality_findings_daily', 'answer_log']);
  }

}
