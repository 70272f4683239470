/**
 * New from examples: paste texts already written in the voice, have a provider draft the persona
 * (POST /v1/personas/draft), read each attribute's evidence and what was dropped, edit, save. The
 * draft is stored nowhere until Save creates the persona; the samples stay on the page to draft
 * again.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import type { DraftOutcome } from '../api/drafting.js';
import { type Provider, providerNames } from '../api/providers.js';
import { useFocusOnMount } from '../hooks.js';
import { type RefineSettings, ProviderFields } from '../preview/refine-settings.js';
import { RefineFailure } from '../preview/refine-output.js';
import { useScopes } from '../scopes.js';
import { PersonaEditor } from '../views/persona-editor.js';
import type { EditingCallbacks } from '../views/use-persona-editing.js';
import { DraftEvidence } from './draft-evidence.js';
import { draftRequestFor, MAX_SAMPLES, SampleTexts } from './sample-texts.js';
import { ProblemLine } from '../views/status-lines.js';

interface DraftViewProps extends EditingCallbacks {
  api: StudioApi;
  settings: RefineSettings;
  /** Undefined while the list is loading. */
  providers: readonly Provider[] | undefined;
  onSettings: (settings: RefineSettings) => void;
  onDeleted: () => void;
}

export function DraftView({ api, settings, providers, onSettings, onSaved, onNotice, onDeleted }: DraftViewProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnMount(heading);
  const [samples, setSamples] = useState<string[]>(['']);
  const [name, setName] = useState('');
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [failure, setFailure] = useState<ApiError | undefined>(undefined);
  // Each draft gets a fresh editor (the counter keys it), so a second draft replaces the first.
  const [drafted, setDrafted] = useState<{ outcome: DraftOutcome; count: number } | undefined>(undefined);
  const cannotDraft = useScopes().lacking('personas:write');

  const draft = async () => {
    const request = draftRequestFor(samples, name, settings, providers ?? []);
    setProblem(typeof request === 'string' ? request : undefined);
    if (typeof request === 'string') return;
    setRunning(true);
    setFailure(undefined);
    try {
      const outcome = await api.drafting.draft(request);
      setDrafted((previous) => ({ outcome, count: (previous?.count ?? 0) + 1 }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setFailure(error);
    } finally {
      setRunning(false);
    }
  };

  return (
    <section aria-labelledby="draft-heading" class="draft-view">
      <h2 id="draft-heading" ref={heading} tabIndex={-1}>
        New persona from examples
      </h2>
      <p>
        Paste texts already written in the voice you want: emails, help articles, posts. A model describes their voice as a persona, quoting the sample behind each
        attribute; nothing is saved until you save the persona. The samples are data to describe, never instructions to the model.
      </p>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!running) void draft();
        }}
      >
        <SampleTexts samples={samples} onChange={setSamples} />
        <div class="field">
          <label for="draft-name">Name (optional)</label>
          <p id="draft-name-hint" class="hint">
            Else the model names it.
          </p>
          <input id="draft-name" type="text" autocomplete="off" aria-describedby="draft-name-hint" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <ProviderFields settings={settings} providers={providers} onChange={onSettings} />
        <div class="actions">
          <button type="submit" disabled={running || cannotDraft !== undefined} title={cannotDraft}>
            {running ? 'Drafting…' : drafted ? 'Draft again' : 'Draft persona'}
          </button>
          {cannotDraft && <span class="hint">{cannotDraft}</span>}
          <span class="hint">
            {samples.length} of {MAX_SAMPLES} samples
          </span>
        </div>
      </form>
      <ProblemLine problem={problem} />
      {failure && <RefineFailure error={failure} providerName={providerNames(providers ?? [])} />}
      {drafted && (
        <div class="editor-and-preview drafted">
          <PersonaEditor
            key={drafted.count}
            api={api}
            id={undefined}
            initial={{ name: drafted.outcome.draft.name, attributes: drafted.outcome.draft.attributes }}
            onSaved={onSaved}
            onNotice={onNotice}
            onDeleted={onDeleted}
          />
          <DraftEvidence outcome={drafted.outcome} />
        </div>
      )}
    </section>
  );
}
