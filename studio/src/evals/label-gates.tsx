/**
 * Label policies as gates: the evaluation a move of the label to a version needs (a completed
 * run of that version with at least this score and pass rate, at most so many days old).
 * Protection is left as it is; the history view moves the labels.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { LabelPolicy } from '../api/types.js';

const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text));
const shown = (value: number | null) => (value === null ? '' : String(value));

function Gate({ api, personaId, policy, canSet }: { api: StudioApi; personaId: string; policy: LabelPolicy; canSet: string | undefined }) {
  const [minScore, setMinScore] = useState(shown(policy.minScore));
  const [minPassRate, setMinPassRate] = useState(shown(policy.minPassRate));
  const [maxAgeDays, setMaxAgeDays] = useState(shown(policy.maxAgeDays));
  const [status, setStatus] = useState<string | undefined>(undefined);
  const id = `gate-${policy.label}`;
  const save = async () => {
    try {
      const saved = await api.setLabelPolicy(personaId, policy.label, {
        minScore: numberOrNull(minScore),
        minPassRate: numberOrNull(minPassRate),
        maxAgeDays: numberOrNull(maxAgeDays),
      });
      setStatus(`Saved: moving “${saved.label}” needs ${describeGate(saved)}.`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setStatus(plainError(error));
    }
  };
  return (
    <form
      class="group gate"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <fieldset class="group">
        <legend>Label {policy.label}</legend>
        <div class="field">
          <label for={`${id}-score`}>Minimum score, {policy.label}</label>
          <input id={`${id}-score`} type="text" inputMode="numeric" value={minScore} onInput={(event) => setMinScore(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${id}-pass-rate`}>Minimum pass rate (0–1), {policy.label}</label>
          <input id={`${id}-pass-rate`} type="text" inputMode="decimal" value={minPassRate} onInput={(event) => setMinPassRate(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${id}-age`}>At most days old, {policy.label}</label>
          <input id={`${id}-age`} type="text" inputMode="numeric" value={maxAgeDays} onInput={(event) => setMaxAgeDays(event.currentTarget.value)} />
        </div>
        <div class="actions wide">
          <button type="submit" disabled={canSet !== undefined} title={canSet}>
            Save the gate of {policy.label}
          </button>
          <span role="status" class="hint">
            {status}
          </span>
        </div>
      </fieldset>
    </form>
  );
}

export function describeGate(policy: LabelPolicy): string {
  const bars = [
    policy.minScore === null ? '' : `score ≥ ${policy.minScore}`,
    policy.minPassRate === null ? '' : `pass rate ≥ ${policy.minPassRate}`,
    policy.maxAgeDays === null ? '' : `at most ${policy.maxAgeDays} days old`,
  ].filter((bar) => bar !== '');
  return bars.length === 0 ? 'no evaluation' : `a completed run of the target version with ${bars.join(', ')}`;
}

export function LabelGates({ api, personaId, policies, canSet }: { api: StudioApi; personaId: string; policies: LabelPolicy[]; canSet: string | undefined }) {
  return (
    <section aria-labelledby="gates-heading" class="gates">
      <h3 id="gates-heading">Label gates</h3>
      <p class="hint">A label with a gate moves to a version only after a good enough run of that version (restores and rollbacks included). Leave a field empty for no such bar.</p>
      {policies.map((policy) => (
        <Gate key={policy.label} api={api} personaId={personaId} policy={policy} canSet={canSet} />
      ))}
    </section>
  );
}
