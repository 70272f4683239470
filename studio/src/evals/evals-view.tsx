/**
 * A persona's evaluations: its samples, starting a run and following it live, the runs so far,
 * two runs compared side by side, and the label gates those runs open.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi, VersionedSamples } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { Provider } from '../api/providers.js';
import type { EvalComparison, EvalRun, LabelPolicy, Persona, PersonaLabels, StartEvalInput } from '../api/types.js';
import { useDistinctName } from '../personas/persona-names.js';
import { historyHref, personaHref } from '../routing.js';
import { useScopes } from '../scopes.js';
import { CompareRuns } from './compare-runs.js';
import { LabelGates } from './label-gates.js';
import { RunForm } from './run-form.js';
import { RunResults, type RunView } from './run-results.js';
import { SamplesEditor } from './samples-editor.js';

interface Loaded {
  persona: Persona;
  versions: number[];
  labels: PersonaLabels;
  samples: VersionedSamples;
  runs: EvalRun[];
  policies: LabelPolicy[];
}

export function EvalsView({ api, id, providers }: { api: StudioApi; id: string; providers: readonly Provider[] | undefined }) {
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [current, setCurrent] = useState<RunView | undefined>(undefined);
  const [pair, setPair] = useState<{ base: string; head: string }>({ base: '', head: '' });
  const [comparison, setComparison] = useState<EvalComparison | undefined>(undefined);
  const following = useRef<AbortController | undefined>(undefined);
  const scopes = useScopes();
  const nameOf = useDistinctName();

  const load = async () => {
    try {
      const [{ persona }, versions, labels, policies, samples, runs] = await Promise.all([
        api.getPersona(id),
        api.listVersions(id),
        api.labels(id),
        api.labelPolicies(id),
        api.samples(id),
        api.listEvals(id),
      ]);
      // The service lists the policy of every label set, every label with a policy, and production.
      setLoaded({ persona, versions: versions.map((version) => version.version).reverse(), labels, samples, runs, policies: Object.values(policies) });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setProblem(plainError(error));
    }
  };
  useEffect(() => {
    void load();
    return () => following.current?.abort();
  }, [id]);

  const follow = async (run: EvalRun) => {
    following.current?.abort();
    const controller = new AbortController();
    following.current = controller;
    let view: RunView = { run, results: [], progress: run.progress };
    setCurrent(view);
    try {
      await api.followEval(id, run.id, controller.signal, (update) => {
        if ('result' in update) view = { ...view, results: [...view.results.filter((r) => r.sampleId !== update.result.sampleId), update.result], run: { ...view.run, status: 'running' } };
        if ('progress' in update) view = { ...view, progress: update.progress };
        if ('done' in update) view = { ...view, ...(update.done.message ? { ending: `The run ended ${update.done.status}: ${update.done.message}` } : {}) };
        setCurrent(view);
      });
      const ended = await api.getEval(id, run.id);
      setCurrent({ ...view, run: ended, results: ended.results });
      // Replaced where it is: showing an older run's results must not lift it above newer ones.
      setLoaded((state) => state && { ...state, runs: state.runs.map((r) => (r.id === ended.id ? ended : r)) });
    } catch (error) {
      if (controller.signal.aborted) return;
      if (!(error instanceof ApiError)) throw error;
      setProblem(plainError(error));
    }
  };

  const start = async (input: StartEvalInput) => {
    setProblem(undefined);
    try {
      const run = await api.startEval(id, input);
      setLoaded((state) => state && { ...state, runs: [run, ...state.runs] });
      await follow(run);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setProblem(plainError(error, (provider) => providers?.find((p) => p.id === provider)?.name ?? provider));
    }
  };

  const compare = async () => {
    setProblem(undefined);
    try {
      setComparison(await api.compareEvals(id, pair.base, pair.head));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setProblem(plainError(error));
    }
  };

  if (!loaded) return problem ? <p role="alert" class="error">{problem}</p> : <p role="status">Loading…</p>;
  const runLabel = (run: EvalRun) => `Version ${run.version}, ${run.provider}, ${run.createdAt.slice(0, 19).replace('T', ' ')}: ${run.status}${run.summary.score === null ? '' : `, score ${run.summary.score}`}`;
  const noSamples = loaded.samples.samples.length === 0 ? 'Save at least one sample first.' : undefined;
  return (
    <section aria-labelledby="evals-heading" class="evals">
      <h2 id="evals-heading">Evaluations of {nameOf(loaded.persona)}</h2>
      <p>
        <a href={personaHref(id)}>Edit the persona</a> · <a href={historyHref(id)}>History and labels</a>
      </p>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      <SamplesEditor
        api={api}
        personaId={id}
        loaded={loaded.samples}
        canWrite={scopes.can('personas:write')}
        onSaved={(samples) => setLoaded((state) => state && { ...state, samples })}
      />
      <section aria-labelledby="runs-heading">
        <h3 id="runs-heading">Runs</h3>
        <RunForm versions={loaded.versions} labels={loaded.labels} providers={providers} disabled={scopes.lacking('evals') ?? noSamples} onStart={(input) => void start(input)} />
        <div aria-live="polite">
          {current && (
            <RunResults
              view={current}
              samples={loaded.samples.samples}
              onCancel={() => void api.cancelEval(id, current.run.id).catch(() => undefined)}
            />
          )}
        </div>
        {loaded.runs.length > 0 && (
          <ul class="runs">
            {loaded.runs.map((run) => (
              <li key={run.id}>
                {runLabel(run)}{' '}
                <button type="button" class="link" onClick={() => void follow(run)}>
                  Show its results
                </button>
              </li>
            ))}
          </ul>
        )}
        {loaded.runs.length > 1 && (
          <form
            class="compare-form"
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              if (pair.base && pair.head) void compare();
            }}
          >
            <fieldset class="group">
              <legend>Compare two runs</legend>
              {(['base', 'head'] as const).map((which) => (
                <div key={which} class="field">
                  <label for={`compare-${which}`}>{which === 'base' ? 'Base run (before)' : 'Head run (after)'}</label>
                  <select id={`compare-${which}`} value={pair[which]} onChange={(event) => setPair({ ...pair, [which]: event.currentTarget.value })}>
                    <option value="">Choose a run</option>
                    {loaded.runs.map((run) => (
                      <option key={run.id} value={run.id}>
                        {runLabel(run)}
                      </option>
                    ))}
                  </select>
                </div>
              ))}
              <div class="actions wide">
                <button type="submit" disabled={!pair.base || !pair.head}>
                  Compare
                </button>
              </div>
            </fieldset>
          </form>
        )}
        {comparison && <CompareRuns comparison={comparison} runs={loaded.runs} samples={loaded.samples.samples} />}
      </section>
      <LabelGates api={api} personaId={id} policies={loaded.policies} canSet={scopes.lacking('labels:protected')} />
    </section>
  );
}
