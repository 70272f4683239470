/** Preview: refine sample text with the saved persona and see what changed, beside the original. */
import { useState } from 'preact/hooks';
import type { StudioApi } from '../api/client.js';
import { type Provider, providerNames } from '../api/providers.js';
import type { Persona } from '../api/types.js';
import { MarkedOriginal, ProtectedSummary } from './protected-marks.js';
import { DiffLegend, DiffText, RefineFailure, Spend, Timing } from './refine-output.js';
import { type RefineSettings, RefineSettingsFields, refineRequestFor } from './refine-settings.js';
import { type RefineResult, runRefine } from './run-refine.js';

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
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<RefineResult | undefined>(undefined);

  const refine = async () => {
    const request = refineRequestFor(settings, persona.id, providers ?? []);
    setProblem(typeof request === 'string' ? request : undefined);
    if (typeof request === 'string') return;
    setRunning(true);
    setResult(undefined);
    try {
      setResult(await runRefine(api, request));
    } finally {
      setRunning(false);
    }
  };

  return (
    <section aria-labelledby="preview-heading" class="preview">
      <h3 id="preview-heading">Preview</h3>
      {dirty && <p class="notice">The preview uses the saved version of this persona. Save to preview your changes.</p>}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!running) void refine();
        }}
      >
        <RefineSettingsFields settings={settings} providers={providers} onChange={onSettings} />
        <div class="actions">
          <button type="submit" disabled={running}>
            {running ? 'Refining…' : 'Refine'}
          </button>
        </div>
      </form>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      <div aria-live="polite">
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
                <DiffText parts={result.diff} side="after" />
              </figure>
            </div>
            <ProtectedSummary sample={result.sample} items={result.protectedItems} />
            <Timing outcome={result.outcome} />
            <Spend outcome={result.outcome} />
          </div>
        )}
      </div>
    </section>
  );
}
