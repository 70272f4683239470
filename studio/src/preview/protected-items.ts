/**
 * The protected items of the sample text (numbers, links, e-mail addresses, code, template
 * placeholders) and whether the answer kept each one, found by the service's own `preserve`
 * rule, so the preview shows exactly what every refine checks.
 */
import { preservedOriginal, preserveViolations } from '../../../src/rules/preserve.js';
import type { PreservedKind } from '../../../src/rules/preserved-items.js';

export interface ProtectedItem {
  /** Offsets into the sample text. */
  start: number;
  end: number;
  kind: PreservedKind;
  lost: boolean;
}

export function protectedItems(sample: string, answer: string): ProtectedItem[] {
  const original = preservedOriginal(sample);
  const lost = new Set(preserveViolations(original, answer).map((violation) => violation.start));
  return original.items.map(({ start, end, kind }) => ({ start, end, kind, lost: lost.has(start) }));
}
