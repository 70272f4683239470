/**
 * Preview: refine sample text with the saved persona and see what changed, beside the original;
 * or, in Generate mode, have a model answer a prompt in the persona's voice.
 */
import { useRef, useState } from 'preact/hooks';
import { variantNames } from '../personas/variant-names.js';
import type { StudioApi } from '../api/client.js';
import { type Provider, providerNames } from '../api/providers.js';
import type { Persona } from '../api/types.js';
import { GeneratePanel } from './generate-panel.js';
import { PersonaScore } from './persona-score.js';
import { MarkedOriginal, ProtectedSummary } from './protected-marks.js';
import { CheckFailure, DiffLegend, JudgeSpend, RefineFailure, Spend, Timing } from './refine-output.js';
import { type RefineSettings, RefineSettingsFields, refineRequestFor } from './refine-settings.js';
import { MarkedRefined, RuleViolations } from './rule-violations.js';
import { type RefineResult, runRefine } from './run-refine.js';
import { useScopes } from '../scopes.js';
import { ProblemLine } from '../views/status-lines.js';

interface PreviewPanelProps {
  api: StudioApi;
  persona: Persona;
  /** The editor has unsaved changes, which the preview (using the saved persona) does not see. */
  dirty: boolean;
  settings: RefineSettings;
  /** Undefined while the list is loading. */
  providers: readonly Provider[] | undefined;
  onSettings: (settings: RefineSettings) => void;
}

export function PreviewPanel({ api, persona, dirty, settings, providers, onSettings }: PreviewPanelProps) {
  const [mode, setMode] = useState<'refine' | 'generate'>('refine');
  const [running, setRunning] = useState(false);
  const cannotRefine = useScopes().lacking('refine');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<RefineResult | undefined>(undefined);
  const [stream, setStream] = useState(false);
  const [judge, setJudge] = useState(false);
  // A judge needs a model and a key: every provider but `rules` (one typed under "Other…" is assumed to have them).
  const unjudgeable = providers?.find((provider) => provider.id === settings.provider)?.requiresKey === false;
  /** While a stream runs (and after Stop): the text so far. */
  const [streamed, setStreamed] = useState<{ text: string; stopped: boolean } | undefined>(undefined);
  const stopper = useRef<AbortController | undefined>(undefined);
  const variants = variantNames(persona.attributes);
  const [chosenVariant, setVariant] = useState<string | undefined>(undefined);
  // A variant the saved persona no longer has is the persona itself again.
  const variant = chosenVariant !== undefined && variants.includes(chosenVariant) ? chosenVariant : undefined;

  const refine = async () => {
    const request = refineRequestFor(settings, persona.id, providers ?? [], variant);
    setProblem(typeof request === 'string' ? request : undefined);
    if (typeof request === 'string') return;
    setRunning(true);
    setResult(undefined);
    setStreamed(undefined);
    const controller = new AbortController();
    stopper.current = controller;
    try {
      const judged = judge && !unjudgeable;
      if (!stream) {
        setResult(await runRefine(api, request, { judge: judged }));
        return;
      }
      setStreamed({ text: '', stopped: false });
      const outcome = await runRefine(api, request, {
        judge: judged,
        refine: (streaming) => api.refineStream(streaming, controller.signal, (text) => setStreamed({ text, stopped: false })),
      });
      setStreamed(undefined);
      setResult(outcome);
    } catch (error) {
      // Stop: the text so far stays on screen, marked as stopped.
      if (!controller.signal.aborted) throw error;
      setStreamed((shown) => ({ text: shown?.text ?? '', stopped: true }));
    } finally {
      stopper.current = undefined;
      setRunning(false);
    }
  };

  return (
    <section aria-labelledby="preview-heading" class="preview">
      <h3 id="preview-heading">Preview</h3>
      {dirty && <p class="notice">The preview uses the saved version of this persona. Save to preview your changes.</p>}
      <fieldset class="mode-switch preview-mode">
        <legend>Mode</legend>
        {(['refine', 'generate'] as const).map((value) => (
          <label key={value}>
            <input type="radio" name="preview-mode" value={value} checked={mode === value} onChange={() => setMode(value)} />
            {value === 'refine' ? 'Refine' : 'Generate'}
          </label>
        ))}
      </fieldset>
      {variants.length > 0 && (
        <div class="field">
          <label for="preview-variant">Variant</label>
          <select id="preview-variant" value={variant ?? ''} onChange={(event) => setVariant(event.currentTarget.value || undefined)}>
            <option value="">None: the persona itself</option>
            {variants.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      )}
      {mode === 'generate' ? (
        <GeneratePanel api={api} persona={persona} settings={settings} providers={providers} onSettings={onSettings} variant={variant} />
      ) : (
        refineMode()
      )}
    </section>
  );

  /** Called, not rendered as a component: a component declared in here would be new on every render and lose the focus. */
  function refineMode() {
    return (
      <>
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            if (!running) void refine();
          }}
        >
          <RefineSettingsFields settings={settings} providers={providers} onChange={onSettings} />
          <div class="field checkbox">
            <input id="preview-stream" type="checkbox" checked={stream} onChange={(event) => setStream(event.currentTarget.checked)} />
            <label for="preview-stream">Stream the answer as it is written (no repair call)</label>
          </div>
          <div class="field checkbox">
            <input
              id="preview-judge"
              type="checkbox"
              checked={judge && !unjudgeable}
              disabled={unjudgeable}
              aria-describedby="preview-judge-hint"
              onChange={(event) => setJudge(event.currentTarget.checked)}
            />
            <label for="preview-judge">Judge the voice</label>
          </div>
          <p id="preview-judge-hint" class="hint">
            {unjudgeable
              ? 'Rules only has no model to judge with: choose a provider first.'
              : 'The same provider, key and model rate the answer against each descriptive attribute, with a reason: one more provider call.'}
          </p>
          <div class="actions">
            <button type="submit" disabled={running || cannotRefine !== undefined} title={cannotRefine}>
              {running ? 'Refining…' : 'Refine'}
            </button>
            {cannotRefine && <span class="hint">{cannotRefine}</span>}
            {running && stream && (
              <button type="button" onClick={() => stopper.current?.abort()}>
                Stop
              </button>
            )}
          </div>
        </form>
        <ProblemLine problem={problem} />
        <div aria-live="polite">
          {streamed && (
            <figure class="streamed">
              <figcaption>{streamed.stopped ? `Stopped: what ${persona.name} had written` : `${persona.name} is writing…`}</figcaption>
              <div class="diff-text streamed-text">{streamed.text}</div>
            </figure>
          )}
          {result && 'error' in result && <RefineFailure error={result.error} providerName={providerNames(providers ?? [])} />}
          {result && 'outcome' in result && (
            <div class="result">
              <h4 class="visually-hidden">Result</h4>
              <DiffLegend />
              <div class="columns">
                <figure>
                  <figcaption>Original</figcaption>
                  <MarkedOriginal parts={result.diff} items={result.protectedItems} />
                </figure>
                <figure>
                  <figcaption>Refined by {persona.name}</figcaption>
                  <MarkedRefined parts={result.diff} violations={result.verdict?.violations ?? []} />
                </figure>
              </div>
              {result.verdict && <PersonaScore verdict={result.verdict} attributes={persona.attributes} />}
              {result.checkFailure && <CheckFailure error={result.checkFailure} providerName={providerNames(providers ?? [])} />}
              <RuleViolations violations={result.verdict?.violations} answer={result.outcome.response} sample={result.sample} />
              <ProtectedSummary sample={result.sample} items={result.protectedItems} />
              <Timing outcome={result.outcome} />
              <Spend outcome={result.outcome} />
              {result.judgeUsage && <JudgeSpend usage={result.judgeUsage} />}
            </div>
          )}
        </div>
      </>
    );
  }
}
