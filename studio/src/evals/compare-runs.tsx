/** Two runs side by side, sample by sample, with the regressions (a score fallen by 10 or more, or passed then failed) marked. */
import type { EvalComparison, EvalRun, EvalSample } from '../api/types.js';

const side = (scored: { score: number | null; passed: boolean } | null) => (scored === null ? 'not in this run' : `${scored.score ?? 'failed'} ${scored.passed ? '(passed)' : '(did not pass)'}`);

export function CompareRuns({ comparison, runs, samples }: { comparison: EvalComparison; runs: readonly EvalRun[]; samples: readonly EvalSample[] }) {
  const regressed = new Set(comparison.regressions.map((regression) => regression.sampleId));
  const title = (id: string) => {
    const run = runs.find((candidate) => candidate.id === id);
    return run ? `version ${run.version}, ${run.createdAt.slice(0, 19).replace('T', ' ')}` : id;
  };
  const name = (id: string) => samples.find((sample) => sample.id === id)?.name ?? id;
  return (
    <section class="compare-runs" aria-labelledby="compare-runs-heading">
      <h4 id="compare-runs-heading">
        {comparison.regressions.length === 0 ? 'No regression' : `${comparison.regressions.length} regression${comparison.regressions.length === 1 ? '' : 's'}`}
      </h4>
      <table class="results">
        <thead>
          <tr>
            <th scope="col">Sample</th>
            <th scope="col">Base: {title(comparison.base)}</th>
            <th scope="col">Head: {title(comparison.head)}</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {comparison.samples.map((entry) => (
            <tr key={entry.sampleId} class={regressed.has(entry.sampleId) ? 'regression' : undefined}>
              <th scope="row">
                {name(entry.sampleId)}
                {regressed.has(entry.sampleId) && <strong class="regression-tag"> regression</strong>}
              </th>
              <td>{side(entry.base)}</td>
              <td>{side(entry.head)}</td>
              <td>{entry.delta === null ? '–' : entry.delta > 0 ? `+${entry.delta}` : String(entry.delta)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
