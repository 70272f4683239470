/** The score table `check` and `eval` print: a row per text, its score, parts and findings. */
import type { CheckFinding } from '../index.js';

/** `avoid=2 required, maxWords=1 recommended`, or `-`: per rule and severity, in the order found. */
export function findingsText(findings: readonly Pick<CheckFinding, 'rule' | 'severity'>[]): string {
  const counts = new Map<string, number>();
  for (const finding of findings) {
    const key = `${finding.rule} ${finding.severity}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return '-';
  return [...counts].map(([key, count]) => key.replace(' ', `=${count} `)).join(', ');
}

/** The columns, after the first one that names the text (a file, a sample). */
export const scoreColumns = <T extends string>(first: T) =>
  [
    { title: first },
    { title: 'score', align: 'right' },
    { title: 'rules', align: 'right' },
    { title: 'facts', align: 'right' },
    { title: 'voice', align: 'right' },
    { title: 'passed' },
    { title: 'findings' },
  ] as const;

interface Scored {
  score: number;
  scores: { rules: number; facts: number; voice?: number };
  passed: boolean;
  violations: readonly Pick<CheckFinding, 'rule' | 'severity'>[];
}

/** A scored text's row, or one that says why it has no score. */
export function scoreRow(name: string, scored: Scored | { error: string }): string[] {
  if ('error' in scored) return [name, '-', '-', '-', '-', 'error', scored.error];
  const { rules, facts, voice } = scored.scores;
  return [name, String(scored.score), String(rules), String(facts), voice === undefined ? '-' : String(voice), scored.passed ? 'yes' : 'no', findingsText(scored.violations)];
}
