/**
 * How well the answer matches the persona, as POST /v1/check scores it (docs/voice-score.md):
 * the score, whether it passes and why not, and its three parts. Voice needs a judge.
 */
import type { Attributes, CheckVerdict } from '../api/types.js';

const PARTS: { key: keyof CheckVerdict['scores']; label: string; what: string }[] = [
  { key: 'rules', label: 'Rules', what: 'the persona’s rules the text keeps' },
  { key: 'facts', label: 'Facts', what: 'the numbers, links, code and placeholders of the sample it kept' },
  { key: 'voice', label: 'Voice', what: 'how a judge model rates its voice' },
];

/** Why a check did not pass, in words: required findings, or a score under the persona's minScore. */
function failureReasons(verdict: CheckVerdict, attributes: Attributes): string[] {
  const required = verdict.violations.filter((finding) => finding.severity === 'required').length;
  const reasons: string[] = [];
  if (required > 0) reasons.push(required === 1 ? '1 required finding' : `${required} required findings`);
  const { minScore } = attributes;
  if (typeof minScore === 'number' && verdict.score < minScore) reasons.push(`under the persona’s minimum score of ${minScore}`);
  return reasons;
}

export function PersonaScore({ verdict, attributes }: { verdict: CheckVerdict; attributes: Attributes }) {
  const reasons = failureReasons(verdict, attributes);
  return (
    <section class="persona-score" aria-labelledby="persona-score-heading">
      <h4 id="persona-score-heading">
        Persona score {verdict.score} of 100
      </h4>
      <p class={verdict.passed ? 'passed' : 'not-passed'}>
        {verdict.passed ? 'Passes the persona’s check.' : `Does not pass: ${reasons.join(' and ') || 'the service says so'}.`}
      </p>
      <dl class="sub-scores">
        {PARTS.map(({ key, label, what }) => {
          const value = verdict.scores[key];
          return (
            <div key={key} data-part={key} title={`${label}: ${what}`}>
              <dt>{label}</dt>
              <dd>
                {value === undefined ? (
                  'not judged'
                ) : (
                  <>
                    <meter min={0} max={100} low={50} high={80} optimum={100} value={value} aria-label={`${label} ${value} of 100`} /> {value}
                  </>
                )}
              </dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}
