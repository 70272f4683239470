/** One run: its progress while it runs, then a row per sample with its score, whether it passed, its findings and its answer. */
import type { EvalResult, EvalRun, EvalSample } from '../api/types.js';
import { ruleName } from '../personas/rules.js';

export interface RunView {
  run: EvalRun;
  results: EvalResult[];
  progress: { done: number; total: number };
  /** Why it ended other than completed, once it did. */
  ending?: string;
}

const sampleName = (samples: readonly EvalSample[], id: string) => {
  const index = samples.findIndex((sample) => sample.id === id);
  return index === -1 ? id : (samples[index]!.name ?? `Sample ${index + 1}`);
};

/** Each kind of finding once, counted when the answer has it more than once ("Words to avoid (required) ×2"). */
export function findingsText(violations: EvalResult['violations']): string {
  const counts = new Map<string, number>();
  for (const finding of violations) {
    const kind = `${ruleName(finding.rule)} (${finding.severity})`;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, count]) => (count > 1 ? `${kind} ×${count}` : kind)).join(', ');
}

/** The terms of its `expect` an answer missed, or `''`: without them a sample that fails only its `expect` would not say why. */
export function unmetExpectationsText(expectations: EvalResult['expectations']): string {
  const unmet = (expectations ?? []).filter((outcome) => !outcome.met);
  if (unmet.length === 0) return '';
  return `Expect not met: ${unmet.map((outcome) => ('contains' in outcome ? `missing “${outcome.contains}”` : `contains “${outcome.notContains}”`)).join(', ')}`;
}

/** Findings, then the missed expectations, each on a line of its own. */
function reasons(result: EvalResult) {
  if (result.error) return result.error.message;
  const findings = findingsText(result.violations);
  const unmet = unmetExpectationsText(result.expectations);
  if (!findings && !unmet) return '–';
  return (
    <>
      {findings}
      {findings && unmet && <br />}
      {unmet && <span class="unmet-expectations">{unmet}</span>}
    </>
  );
}

export function RunResults({ view, samples, onCancel }: { view: RunView; samples: readonly EvalSample[]; onCancel?: () => void }) {
  const { run, results, progress } = view;
  const byOrder = [...results].sort((a, b) => samples.findIndex((s) => s.id === a.sampleId) - samples.findIndex((s) => s.id === b.sampleId));
  const running = run.status === 'queued' || run.status === 'running';
  return (
    <section class="run-results" aria-labelledby={`run-${run.id}`}>
      <h4 id={`run-${run.id}`}>
        Run of version {run.version} with {run.provider}
        {run.model ? `/${run.model}` : ''}: {run.status}
      </h4>
      <p class="run-progress">
        <progress max={progress.total} value={progress.done} aria-label="Samples done" /> {progress.done} of {progress.total} samples
        {running && onCancel && (
          <>
            {' '}
            <button type="button" class="secondary" onClick={onCancel}>
              Cancel the run
            </button>
          </>
        )}
      </p>
      {view.ending && <p class="error">{view.ending}</p>}
      {!running && (
        <p class="run-summary">
          Mean score {run.summary.score ?? '–'} · pass rate {Math.round(run.summary.passRate * 1000) / 10} %
          {run.summary.minScore !== null ? ` · minimum score ${run.summary.minScore}` : ''}
          {run.summary.failedExpectations ? ` · ${run.summary.failedExpectations} expectation${run.summary.failedExpectations === 1 ? '' : 's'} not met` : ''}
        </p>
      )}
      <table class="results">
        <thead>
          <tr>
            <th scope="col">Sample</th>
            <th scope="col">Score</th>
            <th scope="col">Passed</th>
            <th scope="col">Findings</th>
            <th scope="col">Answer</th>
          </tr>
        </thead>
        <tbody>
          {byOrder.map((result) => (
            <tr key={result.sampleId} class={result.passed ? 'passed' : 'not-passed'} data-sample={result.sampleId}>
              <th scope="row">{sampleName(samples, result.sampleId)}</th>
              <td>{result.score ?? '–'}</td>
              <td>{result.error ? 'failed' : result.passed ? 'yes' : 'no'}</td>
              <td>{reasons(result)}</td>
              <td class="answer">{result.response ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
