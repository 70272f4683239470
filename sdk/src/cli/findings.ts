/** Rule findings in one table cell, as `check` and `eval` print them. */
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
