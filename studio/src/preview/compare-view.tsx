/** Compare: the same text refined by two personas, side by side. */
import { useRef, useState } from 'preact/hooks';
import type { StudioApi } from '../api/client.js';
import type { Persona } from '../api/types.js';
import { useFocusOnMount } from '../hooks.js';
import { DiffLegend, DiffText, RefineFailure, Timing } from './refine-output.js';
import { type RefineSettings, RefineSettingsFields, refineRequestFor } from './refine-settings.js';
import { type RefineResult, runRefine } from './run-refine.js';

interface CompareViewProps {
  api: StudioApi;
  personas: Persona[];
  settings: RefineSettings;
  providers: string[];
  onSettings: (settings: RefineSettings) => void;
}

type Compared = { persona: Persona; result: RefineResult };

export function CompareView({ api, personas, settings, providers, onSettings }: CompareViewProps) {
  const [picked, setPicked] = useState<[string, string]>(() => [personas[0]?.id ?? '', personas[1]?.id ?? personas[0]?.id ?? '']);
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [compared, setCompared] = useState<Compared[]>([]);
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnMount(heading);

  const compare = async () => {
    const chosen = picked.map((id) => personas.find((persona) => persona.id === id));
    const requests = chosen.map((persona) => (persona ? refineRequestFor(settings, persona.id) : 'Choose two personas first.'));
    const missing = requests.find((request) => typeof request === 'string');
    setProblem(missing as string | undefined);
    if (missing !== undefined) return;
    setRunning(true);
    setCompared([]);
    try {
      const results = await Promise.all(requests.map((request) => runRefine(api, request as Exclude<typeof request, string>)));
      setCompared(results.map((result, index) => ({ persona: chosen[index]!, result })));
    } finally {
      setRunning(false);
    }
  };

  return (
    <section aria-labelledby="compare-heading" class="compare">
      <h2 id="compare-heading" ref={heading} tabIndex={-1}>
        Compare personas
      </h2>
      {personas.length === 0 && <p>Create a persona first; then compare how two of them rewrite the same text.</p>}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!running) void compare();
        }}
      >
        <div class="columns">
          {(['First persona', 'Second persona'] as const).map((label, index) => (
            <div class="field" key={label}>
              <label for={`compare-${index}`}>{label}</label>
              <select
                id={`compare-${index}`}
                value={picked[index]}
                onChange={(event) => {
                  const next: [string, string] = [...picked];
                  next[index] = event.currentTarget.value;
                  setPicked(next);
                }}
              >
                {personas.map((persona) => (
                  <option key={persona.id} value={persona.id}>
                    {persona.name}
                  </option>
                ))}
              </select>
            </div>
          ))}
        </div>
        <RefineSettingsFields settings={settings} providers={providers} onChange={onSettings} />
        <div class="actions">
          <button type="submit" disabled={running || personas.length === 0}>
            {running ? 'Comparing…' : 'Compare'}
          </button>
        </div>
      </form>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      <div aria-live="polite">
        {compared.length > 0 && (
          <div class="result">
            <DiffLegend removals={false} />
            <div class="columns">
              {compared.map(({ persona, result }, index) => (
                <figure key={index}>
                  <figcaption>{persona.name}</figcaption>
                  {'error' in result ? <RefineFailure error={result.error} /> : <DiffText parts={result.diff} side="after" />}
                  {'outcome' in result && <Timing outcome={result.outcome} />}
                </figure>
              ))}
            </div>
          </div>
        )}
      </div>
    </section>
  );
}
