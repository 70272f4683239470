/**
 * The persona's samples: name, text, and what a passing answer must and must not contain (one
 * phrase per line). Saved whole, with the set's ETag; an unchanged sample keeps its id.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi, VersionedSamples } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { EvalSampleInput } from '../api/types.js';

interface Draft {
  id?: string;
  name: string;
  content: string;
  contains: string;
  notContains: string;
}

const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
const draftOf = (sample: VersionedSamples['samples'][number]): Draft => ({
  id: sample.id,
  name: sample.name ?? '',
  content: sample.content,
  contains: (sample.expect?.contains ?? []).join('\n'),
  notContains: (sample.expect?.notContains ?? []).join('\n'),
});

function inputOf(draft: Draft): EvalSampleInput {
  const contains = lines(draft.contains);
  const notContains = lines(draft.notContains);
  const expect = { ...(contains.length ? { contains } : {}), ...(notContains.length ? { notContains } : {}) };
  return {
    ...(draft.id ? { id: draft.id } : {}),
    ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
    content: draft.content,
    ...(Object.keys(expect).length ? { expect } : {}),
  };
}

interface SamplesEditorProps {
  api: StudioApi;
  personaId: string;
  loaded: VersionedSamples;
  canWrite: boolean;
  onSaved: (samples: VersionedSamples) => void;
}

export function SamplesEditor({ api, personaId, loaded, canWrite, onSaved }: SamplesEditorProps) {
  const [drafts, setDrafts] = useState<Draft[]>(() => loaded.samples.map(draftOf));
  const [status, setStatus] = useState<string | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const set = (index: number, change: Partial<Draft>) => setDrafts((all) => all.map((draft, i) => (i === index ? { ...draft, ...change } : draft)));

  const save = async () => {
    setSaving(true);
    try {
      const saved = await api.replaceSamples(personaId, drafts.map(inputOf), loaded.etag);
      setDrafts(saved.samples.map(draftOf));
      setStatus(`Saved ${saved.samples.length} sample${saved.samples.length === 1 ? '' : 's'}.`);
      onSaved(saved);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setStatus(error.status === 412 ? 'Someone else changed the samples since you opened them; reload the page to see theirs.' : plainError(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section aria-labelledby="samples-heading" class="samples">
      <h3 id="samples-heading">Samples</h3>
      <p class="hint">Texts every run refines. A sample passes when its answer has no required finding, reaches the persona’s minimum score and meets what it expects.</p>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!saving) void save();
        }}
      >
        {drafts.map((draft, index) => {
          const id = `sample-${index + 1}`;
          return (
            <fieldset key={index} class="group sample">
              <legend>Sample {index + 1}</legend>
              <div class="field">
                <label for={`${id}-name`}>Name, sample {index + 1}</label>
                <input id={`${id}-name`} type="text" value={draft.name} onInput={(event) => set(index, { name: event.currentTarget.value })} />
              </div>
              <div class="field wide">
                <label for={`${id}-content`}>Text, sample {index + 1}</label>
                <textarea id={`${id}-content`} rows={3} value={draft.content} onInput={(event) => set(index, { content: event.currentTarget.value })} />
              </div>
              <div class="field">
                <label for={`${id}-contains`}>Must contain, sample {index + 1}</label>
                <textarea id={`${id}-contains`} rows={2} value={draft.contains} onInput={(event) => set(index, { contains: event.currentTarget.value })} />
              </div>
              <div class="field">
                <label for={`${id}-not-contains`}>Must not contain, sample {index + 1}</label>
                <textarea id={`${id}-not-contains`} rows={2} value={draft.notContains} onInput={(event) => set(index, { notContains: event.currentTarget.value })} />
              </div>
              <div class="actions wide">
                <button type="button" class="secondary" onClick={() => setDrafts((all) => all.filter((_, i) => i !== index))}>
                  Remove sample {index + 1}
                </button>
              </div>
            </fieldset>
          );
        })}
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setDrafts((all) => [...all, { name: '', content: '', contains: '', notContains: '' }])}>
            Add a sample
          </button>
          <button type="submit" disabled={saving || !canWrite} title={canWrite ? undefined : 'This key lacks the scope “personas:write”.'}>
            {saving ? 'Saving…' : 'Save samples'}
          </button>
        </div>
      </form>
      <p role="status" class={status ? 'notice' : 'visually-hidden'}>
        {status}
      </p>
    </section>
  );
}
