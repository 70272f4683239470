/** The texts a persona is drafted from: one to twenty, each its own box, and the request they make. */
import type { DraftInput } from '../api/drafting.js';
import type { Provider } from '../api/providers.js';
import type { RefineSettings } from '../preview/refine-settings.js';

/** The route's bounds (POST /v1/personas/draft): 1–20 samples of 1–20,000 characters. */
export const MAX_SAMPLES = 20;
export const MAX_SAMPLE_LENGTH = 20_000;

/** The request, or what is missing, in words; empty boxes are left out. */
export function draftRequestFor(samples: readonly string[], name: string, settings: RefineSettings, providers: readonly Provider[]): DraftInput | string {
  const texts = samples.filter((sample) => sample.trim() !== '');
  if (texts.length === 0) return 'Paste at least one sample text first.';
  const tooLong = samples.findIndex((sample) => [...sample].length > MAX_SAMPLE_LENGTH);
  if (tooLong >= 0) return `Sample ${tooLong + 1} is longer than ${MAX_SAMPLE_LENGTH.toLocaleString('en')} characters: shorten it or split it in two.`;
  const provider = settings.provider.trim();
  if (provider === '') return 'Choose a provider first.';
  const listed = providers.find((candidate) => candidate.id === provider);
  if (listed?.defaultModel === null) return `${listed.name} cannot draft a persona: choose a provider with a model.`;
  if (settings.providerKey === '') return `Type your ${listed?.name ?? provider} API key first.`;
  const model = settings.model.trim();
  return {
    samples: texts,
    provider,
    providerApiKey: settings.providerKey,
    ...(model === '' ? {} : { model }),
    ...(name.trim() === '' ? {} : { name: name.trim() }),
  };
}

interface SampleTextsProps {
  samples: string[];
  onChange: (samples: string[]) => void;
}

export function SampleTexts({ samples, onChange }: SampleTextsProps) {
  const set = (index: number, text: string) => onChange(samples.map((sample, at) => (at === index ? text : sample)));
  return (
    <fieldset class="group samples">
      <legend>Samples</legend>
      <p id="samples-hint" class="hint">
        One text per box, up to {MAX_SAMPLES} texts of at most {MAX_SAMPLE_LENGTH.toLocaleString('en')} characters. Three or more give the model a voice to find.
      </p>
      {samples.map((sample, index) => (
        <div key={index} class="field sample">
          <label for={`sample-${index}`}>Sample {index + 1}</label>
          <textarea id={`sample-${index}`} rows={5} aria-describedby="samples-hint" value={sample} onInput={(event) => set(index, event.currentTarget.value)} />
          {samples.length > 1 && (
            <button type="button" class="secondary" onClick={() => onChange(samples.filter((_, at) => at !== index))}>
              Remove sample {index + 1}
            </button>
          )}
        </div>
      ))}
      <button type="button" class="secondary" disabled={samples.length >= MAX_SAMPLES} onClick={() => onChange([...samples, ''])}>
        Add a sample
      </button>
    </fieldset>
  );
}
