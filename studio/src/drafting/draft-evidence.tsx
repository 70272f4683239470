/** Beside the drafted persona: the quote behind each attribute, what was dropped, what it cost. */
import type { DraftOutcome } from '../api/drafting.js';
import { describeUsage } from '../api/usage.js';
import { FIELD_GROUPS } from '../personas/attribute-fields.js';

const LABELS = new Map(FIELD_GROUPS.flatMap((group) => group.fields.map((field) => [field.key as string, field.label])));
const labelOf = (attribute: string) => LABELS.get(attribute) ?? attribute;

export function DraftEvidence({ outcome }: { outcome: DraftOutcome }) {
  const { evidence, warnings = [] } = outcome.draft;
  const quoted = Object.entries(evidence);
  return (
    <aside class="draft-evidence" aria-labelledby="evidence-heading">
      <h3 id="evidence-heading">Evidence from your samples</h3>
      {quoted.length === 0 ? (
        <p class="hint">The model quoted no sample for its attributes: read them with care.</p>
      ) : (
        <dl>
          {quoted.map(([attribute, quote]) => (
            <div key={attribute}>
              <dt>{labelOf(attribute)}</dt>
              <dd>
                <q>{quote}</q>
              </dd>
            </div>
          ))}
        </dl>
      )}
      {warnings.length > 0 && (
        <section aria-labelledby="draft-warnings-heading">
          <h4 id="draft-warnings-heading">Left out of the draft</h4>
          <ul class="draft-warnings">
            {warnings.map((warning, index) => (
              <li key={index}>
                {warning.attribute !== undefined && <strong>{labelOf(warning.attribute)}: </strong>}
                {warning.message}
              </li>
            ))}
          </ul>
        </section>
      )}
      <p class="spend">Drafting: {describeUsage(outcome.usage)}.</p>
    </aside>
  );
}
