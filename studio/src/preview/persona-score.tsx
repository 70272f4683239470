/**
 * How well the answer matches the persona, as POST /v1/check scores it (docs/voice-score.md):
 * the score, whether it passes and why not, its three parts, and, when judged, each rating of
 * the voice with the judge's reason, or why the judge could not rate it.
 */
import type { Attributes, CheckVerdict } from '../api/types.js';

type Judge = NonNullable<CheckVerdict['judge']>;
type Ratings = Extract<Judge, { ratings: unknown }>;

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

/** What a part without a value says: voice is absent when nobody judged, the judge failed, or it had nothing to rate. */
function missingPart(judge: Judge | undefined): string {
  if (judge === undefined) return 'not judged';
  return 'error' in judge ? 'judge failed' : 'nothing to rate';
}

function VoiceRatings({ judge }: { judge: Ratings }) {
  if (judge.ratings.length === 0) return <p class="hint">The persona sets no descriptive attribute (tone, audience, …) for the judge to rate.</p>;
  return (
    <table class="voice-ratings">
      <caption>
        The voice, rated by {judge.provider}/{judge.model}
      </caption>
      <thead>
        <tr>
          <th scope="col">Attribute</th>
          <th scope="col">Rating</th>
          <th scope="col">Reason</th>
        </tr>
      </thead>
      <tbody>
        {judge.ratings.map(({ attribute, rating, reason }) => (
          <tr key={attribute} data-rating={rating}>
            <th scope="row">{attribute}</th>
            <td>{rating} of 5</td>
            <td>{reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function PersonaScore({ verdict, attributes }: { verdict: CheckVerdict; attributes: Attributes }) {
  const reasons = failureReasons(verdict, attributes);
  const { judge } = verdict;
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
                  missingPart(judge)
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
      {judge !== undefined &&
        ('error' in judge ? (
          <p role="alert" class="error judge-error">
            The judge could not rate the voice, so the score leaves it out: {judge.error}
          </p>
        ) : (
          <VoiceRatings judge={judge} />
        ))}
    </section>
  );
}
