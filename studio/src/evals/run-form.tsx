/**
 * Starting a run: which version (a number or a label), which provider with which key and model,
 * and whether a judge rates the voice. The key lives in this form's memory only and leaves the
 * page inside POST …/evals, which holds it for the run only.
 */
import { useState } from 'preact/hooks';
import type { Provider } from '../api/providers.js';
import type { PersonaLabels, StartEvalInput } from '../api/types.js';

interface RunFormProps {
  versions: number[];
  labels: PersonaLabels;
  providers: readonly Provider[] | undefined;
  disabled: string | undefined;
  onStart: (input: StartEvalInput) => void;
}

/** The chosen version as the API takes it: `v3` a version, `label:production` a label, '' the newest. */
type Target = string;

export function RunForm({ versions, labels, providers, disabled, onStart }: RunFormProps) {
  const [target, setTarget] = useState<Target>('');
  const [provider, setProvider] = useState('rules');
  const [model, setModel] = useState('');
  const [key, setKey] = useState('');
  const [judge, setJudge] = useState(false);
  const chosen = providers?.find((candidate) => candidate.id === provider);
  const keyless = chosen?.requiresKey === false;
  const missingKey = !keyless && key === '';

  const start = () => {
    const which = target.startsWith('label:') ? { label: target.slice('label:'.length) } : target.startsWith('v') ? { version: Number(target.slice(1)) } : {};
    onStart({
      provider,
      ...which,
      ...(keyless ? {} : { providerApiKey: key }),
      ...(model.trim() && chosen?.defaultModel !== null ? { model: model.trim() } : {}),
      ...(judge && !keyless ? { judge: true as const } : {}),
    });
  };

  return (
    <form
      class="run-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (!missingKey && !disabled) start();
      }}
    >
      <fieldset class="group">
        <legend>Start a run</legend>
        <div class="field">
          <label for="run-version">Version</label>
          <select id="run-version" value={target} onChange={(event) => setTarget(event.currentTarget.value)}>
            <option value="">The newest version</option>
            {Object.entries(labels).map(([label, version]) => (
              <option key={label} value={`label:${label}`}>
                Label {label} (version {version})
              </option>
            ))}
            {versions.map((version) => (
              <option key={version} value={`v${version}`}>
                Version {version}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="run-provider">Provider</label>
          <select id="run-provider" value={provider} onChange={(event) => setProvider(event.currentTarget.value)}>
            {(providers ?? [{ id: 'rules', name: 'Rules only (no model)', defaultModel: null, requiresKey: false }]).map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="run-model">Model (optional)</label>
          <input id="run-model" type="text" autocomplete="off" value={chosen?.defaultModel === null ? '' : model} disabled={chosen?.defaultModel === null} onInput={(event) => setModel(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="run-key">Provider API key</label>
          <input id="run-key" type="password" autocomplete="off" spellcheck={false} value={keyless ? '' : key} disabled={keyless} onInput={(event) => setKey(event.currentTarget.value)} />
        </div>
        <div class="field checkbox wide">
          <input id="run-judge" type="checkbox" checked={judge && !keyless} disabled={keyless} onChange={(event) => setJudge(event.currentTarget.checked)} />
          <label for="run-judge">Judge the voice of each answer with the same provider (one more call per sample)</label>
        </div>
        <div class="actions wide">
          <button type="submit" disabled={missingKey || disabled !== undefined} title={disabled}>
            Start the run
          </button>
          {missingKey && <span class="hint">Type your {chosen?.name ?? provider} API key first.</span>}
          {disabled && <span class="hint">{disabled}</span>}
        </div>
      </fieldset>
    </form>
  );
}
