/** GET …/quality rows turned into what the dashboard draws: a continuous run of days, lines by version, findings by rule. */
import type { QualityRow } from '../api/types.js';

const DAY_MS = 86_400_000;

/** Every UTC day from the first row's to the last row's: a day without a row is a day without answers, drawn as such. */
export function daySpan(rows: readonly QualityRow[]): string[] {
  const first = rows[0]?.day;
  const last = rows.at(-1)?.day;
  if (!first || !last) return [];
  const days: string[] = [];
  for (let at = Date.parse(`${first}T00:00:00Z`); at <= Date.parse(`${last}T00:00:00Z`); at += DAY_MS) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

/** A row's number per day of `days` (0 for a day without a row). */
export function perDay(days: readonly string[], rows: readonly QualityRow[], value: (row: QualityRow) => number): number[] {
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return days.map((day) => {
    const row = byDay.get(day);
    return row ? value(row) : 0;
  });
}

export interface VersionLine {
  version: number;
  /** The version's mean score per day of `days`; undefined on a day it did not answer. */
  scores: (number | undefined)[];
}

/** From each day's rows grouped by version: one line per version, lowest first. */
export function scoreLines(days: readonly string[], versionsByDay: ReadonlyMap<string, readonly QualityRow[]>): VersionLine[] {
  const versions = [...new Set([...versionsByDay.values()].flat().flatMap((row) => (row.version !== undefined && row.meanScore !== null ? [row.version] : [])))];
  return versions
    .sort((a, b) => a - b)
    .map((version) => ({
      version,
      scores: days.map((day) => versionsByDay.get(day)?.find((row) => row.version === version)?.meanScore ?? undefined),
    }));
}

/** Findings over the rows, by rule: most found first, then by name. */
export function findingsByRule(rows: readonly QualityRow[]): [string, number][] {
  const totals = new Map<string, number>();
  for (const row of rows) for (const [rule, count] of Object.entries(row.findings)) totals.set(rule, (totals.get(rule) ?? 0) + count);
  return [...totals].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
}

export interface QualityTotals {
  answers: number;
  /** Weighted by each row's answers; undefined without answers. */
  meanScore: number | undefined;
  belowMinScore: number;
  up: number;
  down: number;
  inputTokens: number;
  outputTokens: number;
}

export function totalsOf(rows: readonly QualityRow[]): QualityTotals {
  let answers = 0, scoreSum = 0, belowMinScore = 0, up = 0, down = 0, inputTokens = 0, outputTokens = 0;
  for (const row of rows) {
    answers += row.answers;
    scoreSum += (row.meanScore ?? 0) * row.answers;
    belowMinScore += row.belowMinScore;
    up += row.feedback.up;
    down += row.feedback.down;
    inputTokens += row.tokens.input;
    outputTokens += row.tokens.output;
  }
  return { answers, meanScore: answers ? Math.round((scoreSum / answers) * 100) / 100 : undefined, belowMinScore, up, down, inputTokens, outputTokens };
}
