/**
 * The persona's rules the answer still breaks, as POST /v1/check reports them: drawn in the
 * refined text where they are, and listed by rule with the offending words. `preserve` points
 * into the sample (what the answer lost), which the original side already flags.
 */
import type { ComponentChildren } from 'preact';
import type { RuleViolation } from '../api/types.js';
import { ruleName } from '../personas/rules.js';
import type { DiffPart } from './word-diff.js';


/** Whether a span covers the whole answer (a length limit): said in the list, not drawn over every word. */
const wholeText = (violation: RuleViolation, answer: string) => violation.start === 0 && violation.end >= answer.trimEnd().length;

/** Violations drawn in the refined text: spans within it (`preserve` ones point into the sample instead). */
const drawn = (violations: RuleViolation[], answer: string) =>
  violations.filter((violation) => violation.rule !== 'preserve' && violation.end > violation.start && !wholeText(violation, answer));

/** The refined side of the diff (added words underlined) with each violation's span marked; spans may overlap. */
export function MarkedRefined({ parts, violations }: { parts: DiffPart[]; violations: RuleViolation[] }) {
  const answer = parts.filter((part) => part.kind !== 'removed').map((part) => part.text).join('');
  const spans = drawn(violations, answer);
  const nodes: ComponentChildren[] = [];
  let offset = 0;
  parts.forEach((part, index) => {
    if (part.kind === 'removed') return;
    const segments = marked(part.text, offset, spans, index);
    offset += part.text.length;
    nodes.push(part.kind === 'added' ? <ins key={index}>{segments}</ins> : segments);
  });
  return <div class="diff-text">{nodes}</div>;
}

/** `text` starts at `offset` of the answer: cut at every span boundary, each piece marked with the spans covering it. */
function marked(text: string, offset: number, spans: RuleViolation[], part: number): ComponentChildren[] {
  const end = offset + text.length;
  const cuts = new Set([offset, end]);
  for (const span of spans) for (const at of [span.start, span.end]) if (at > offset && at < end) cuts.add(at);
  const points = [...cuts].sort((a, b) => a - b);
  return points.slice(0, -1).map((from, i) => {
    const to = points[i + 1]!;
    const piece = text.slice(from - offset, to - offset);
    const covering = spans.filter((span) => span.start <= from && span.end >= to);
    if (covering.length === 0) return piece;
    return (
      <mark
        key={`${part}:${from}`}
        class="violation"
        data-rule={covering.map((span) => span.rule).join(' ')}
        title={covering.map((span) => `${ruleName(span.rule)}: ${span.message}`).join('\n')}
      >
        {piece}
      </mark>
    );
  });
}

/** Where a violation is, in words: the words it covers, or where an empty span sits. */
function where(violation: RuleViolation, answer: string, sample: string): ComponentChildren {
  const text = violation.rule === 'preserve' ? sample : answer;
  if (violation.rule !== 'preserve' && wholeText(violation, answer)) return 'the whole text';
  if (violation.end > violation.start) {
    const words = text.slice(violation.start, violation.end);
    const shown = words.length > 80 ? `${words.slice(0, 77)}…` : words;
    return (
      <>
        {violation.rule === 'preserve' ? 'in the original: ' : ''}
        <q>{shown}</q>
      </>
    );
  }
  return violation.start >= text.length ? 'at the end' : `at character ${violation.start + 1}`;
}

interface RuleViolationsProps {
  violations: RuleViolation[] | undefined;
  answer: string;
  sample: string;
}

export function RuleViolations({ violations, answer, sample }: RuleViolationsProps) {
  if (violations === undefined) {
    return <p class="rules-unknown">The answer could not be checked against the persona’s rules; refine again to see them.</p>;
  }
  if (violations.length === 0) return <p class="rules-ok">The answer keeps every rule of this persona.</p>;
  const byRule = new Map<string, RuleViolation[]>();
  for (const violation of violations) byRule.set(violation.rule, [...(byRule.get(violation.rule) ?? []), violation]);
  return (
    <section class="rule-violations" aria-labelledby="rule-violations-heading">
      <h4 id="rule-violations-heading">
        Rules still broken: {violations.length === 1 ? '1 violation' : `${violations.length} violations`}
      </h4>
      <ul>
        {[...byRule].map(([rule, found]) => (
          <li key={rule} data-rule={rule}>
            <strong>{ruleName(rule)}</strong> <code>{rule}</code> ×{found.length}{' '}
            <span class="severity" data-severity={found[0]!.severity}>
              {found[0]!.severity}
            </span>
            <ul>
              {found.map((violation) => (
                <li key={`${violation.start}:${violation.end}:${violation.message}`}>
                  {where(violation, answer, sample)} — {violation.message}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
