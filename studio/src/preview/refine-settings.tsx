/**
 * Sample text, provider, model and provider key, shared by Preview and Compare. The provider
 * key lives in the app's memory only (never storage, never the URL) and leaves the page only
 * inside POST /v1/refine and, in the preview's Generate mode, POST /v1/chat/completions.
 */
import { useId } from 'preact/hooks';
import type { RefineRequest } from '../api/client.js';
import type { Provider } from '../api/providers.js';
import { describedBy } from '../fields/field-parts.js';

export interface RefineSettings {
  sample: string;
  provider: string;
  model: string;
  providerKey: string;
}

/**
 * `rules` until the user picks a provider: it needs no key, so a first Refine shows the persona's
 * rules at work instead of asking for a key. The key lives in memory only, so every session (a
 * reload included) starts with no key typed, and so with `rules`.
 */
export const INITIAL_SETTINGS: RefineSettings = { sample: '', provider: 'rules', model: '', providerKey: '' };

/** The request for one persona, or what is missing, in words. */
export function refineRequestFor(settings: RefineSettings, personaId: string, providers: readonly Provider[], variant?: string): RefineRequest | string {
  const provider = settings.provider.trim();
  if (settings.sample.trim() === '') return 'Type some sample text to refine first.';
  if (provider === '') return 'Choose a provider first.';
  // A provider the service does not list (typed under "Other…") is assumed to need a key.
  const listed = providers.find((candidate) => candidate.id === provider);
  if (settings.providerKey === '' && listed?.requiresKey !== false) return `Type your ${listed?.name ?? provider} API key first.`;
  return {
    provider,
    personaId,
    content: settings.sample,
    ...(variant === undefined ? {} : { variant }),
    // A key typed for another provider never goes to one that needs none, nor a model to one without models.
    ...(settings.providerKey === '' || listed?.requiresKey === false ? {} : { providerApiKey: settings.providerKey }),
    ...(settings.model.trim() === '' || listed?.defaultModel === null ? {} : { model: settings.model.trim() }),
  };
}

const OTHER = '__other';

interface RefineSettingsFieldsProps {
  settings: RefineSettings;
  /** Undefined while the list is loading. */
  providers: readonly Provider[] | undefined;
  onChange: (settings: RefineSettings) => void;
}

function modelHintFor(provider: Provider | undefined): string {
  if (provider?.defaultModel === null) return 'This provider uses no model.';
  return provider ? `Leave empty for ${provider.name}’s default model, ${provider.defaultModel}.` : 'Leave empty for the provider’s default model.';
}

export function RefineSettingsFields({ settings, providers, onChange }: RefineSettingsFieldsProps) {
  const id = useId();
  const sampleHint = 'Text an AI wrote, to rewrite in the persona’s voice.';
  return (
    <>
      <div class="field">
        <label for={`${id}-sample`}>Sample text</label>
        <p id={`${id}-sample-hint`} class="hint">
          {sampleHint}
        </p>
        <textarea
          id={`${id}-sample`}
          rows={5}
          value={settings.sample}
          aria-describedby={describedBy(`${id}-sample`, sampleHint)}
          onInput={(event) => onChange({ ...settings, sample: event.currentTarget.value })}
        />
      </div>
      <ProviderFields settings={settings} providers={providers} onChange={onChange} />
    </>
  );
}

/** Provider, model and key: the refine's and the generate mode's, one choice for both. */
export function ProviderFields({ settings, providers, onChange }: RefineSettingsFieldsProps) {
  const id = useId();
  const set = (change: Partial<RefineSettings>) => onChange({ ...settings, ...change });
  const chosen = providers?.find((provider) => provider.id === settings.provider);
  const listed = providers === undefined || chosen !== undefined;
  const keyless = chosen?.requiresKey === false;
  // Disabled rather than hidden, so the form keeps its shape when the provider changes.
  const modelless = chosen?.defaultModel === null;
  const modelHint = modelHintFor(chosen);
  const keyHint = keyless
    ? 'This provider needs no key.'
    : 'Kept in this tab’s memory only, never stored; sent only with refine and generate requests to this service.';
  return (
    <>
      <fieldset class="group provider-settings">
        <legend>Provider, model and key</legend>
        <div class="field">
          <label for={`${id}-provider`}>Provider</label>
          <select
            id={`${id}-provider`}
            value={listed ? settings.provider : OTHER}
            onChange={(event) => set({ provider: event.currentTarget.value === OTHER ? '' : event.currentTarget.value })}
          >
            {providers === undefined && <option value={settings.provider}>Loading providers…</option>}
            {providers?.map((provider) => (
              <option key={provider.id} value={provider.id}>
                {provider.name}
              </option>
            ))}
            <option value={OTHER}>Other…</option>
          </select>
        </div>
        {!listed && (
          <div class="field">
            <label for={`${id}-provider-id`}>Provider id</label>
            <input
              id={`${id}-provider-id`}
              type="text"
              autocomplete="off"
              value={settings.provider}
              onInput={(event) => set({ provider: event.currentTarget.value })}
            />
          </div>
        )}
        <div class="field">
          <label for={`${id}-model`}>Model (optional)</label>
          <p id={`${id}-model-hint`} class="hint">
            {modelHint}
          </p>
          <input
            id={`${id}-model`}
            type="text"
            autocomplete="off"
            value={modelless ? '' : settings.model}
            disabled={modelless}
            aria-describedby={describedBy(`${id}-model`, modelHint)}
            onInput={(event) => set({ model: event.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for={`${id}-key`}>Provider API key</label>
          <p id={`${id}-key-hint`} class="hint">
            {keyHint}
          </p>
          <input
            id={`${id}-key`}
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={keyless ? '' : settings.providerKey}
            disabled={keyless}
            aria-describedby={describedBy(`${id}-key`, keyHint)}
            onInput={(event) => set({ providerKey: event.currentTarget.value })}
          />
        </div>
      </fieldset>
    </>
  );
}
