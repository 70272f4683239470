/** Compare: the same text refined by two personas (or two versions of one), side by side. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { StudioApi } from '../api/client.js';
import type { Persona, PersonaVersion } from '../api/types.js';
import { type Provider, providerNames } from '../api/providers.js';
import { useFocusOnMount } from '../hooks.js';
import { useDistinctName } from '../personas/persona-names.js';
import { DiffLegend, DiffText, RefineFailure, Timing } from './refine-output.js';
import { type RefineSettings, RefineSettingsFields, refineRequestFor } from './refine-settings.js';
import { type RefineResult, runRefine } from './run-refine.js';
import { ProblemLine } from '../views/status-lines.js';

interface CompareViewProps {
  api: StudioApi;
  personas: Persona[];
  settings: RefineSettings;
  /** Undefined while the list is loading. */
  providers: readonly Provider[] | undefined;
  onSettings: (settings: RefineSettings) => void;
}

type Compared = { persona: Persona; version: number | undefined; result: RefineResult };
/** Per side: a version number, or undefined for the newest. */
type PickedVersions = [number | undefined, number | undefined];

export function CompareView({ api, personas, settings, providers, onSettings }: CompareViewProps) {
  const [picked, setPicked] = useState<[string, string]>(() => [personas[0]?.id ?? '', personas[1]?.id ?? personas[0]?.id ?? '']);
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [compared, setCompared] = useState<Compared[]>([]);
  const [pickedVersions, setPickedVersions] = useState<PickedVersions>([undefined, undefined]);
  const [versionsOf, setVersionsOf] = useState<Record<string, PersonaVersion[]>>({});
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnMount(heading);
  const nameOf = useDistinctName();
  useEffect(() => {
    for (const id of new Set(picked)) {
      if (id === '' || versionsOf[id]) continue;
      void api.listVersions(id).then(
        (versions) => setVersionsOf((known) => ({ ...known, [id]: versions })),
        () => {},
      );
    }
  }, [picked[0], picked[1]]);

  const compare = async () => {
    const chosen = picked.map((id) => personas.find((persona) => persona.id === id));
    const requests = chosen.map((persona, index) => {
      if (!persona) return 'Choose two personas first.';
      const request = refineRequestFor(settings, persona.id, providers ?? []);
      const version = pickedVersions[index];
      return typeof request === 'string' || version === undefined ? request : { ...request, personaVersion: version };
    });
    const missing = requests.find((request) => typeof request === 'string');
    setProblem(missing as string | undefined);
    if (missing !== undefined) return;
    setRunning(true);
    setCompared([]);
    try {
      const results = await Promise.all(requests.map((request) => runRefine(api, request as Exclude<typeof request, string>)));
      setCompared(results.map((result, index) => ({ persona: chosen[index]!, version: pickedVersions[index], result })));
    } finally {
      setRunning(false);
    }
  };

  return (
    <section aria-labelledby="compare-heading" class="compare">
      <h2 id="compare-heading" ref={heading} tabIndex={-1}>
        Compare personas
      </h2>
      <p class="hint">Pick the same persona twice and two of its versions to see what an edit changes.</p>
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
                  const versions: PickedVersions = [...pickedVersions];
                  versions[index] = undefined;
                  setPickedVersions(versions);
                }}
              >
                {personas.map((persona) => (
                  <option key={persona.id} value={persona.id}>
                    {nameOf(persona)}
                  </option>
                ))}
              </select>
              <label for={`compare-version-${index}`}>{index === 0 ? 'First version' : 'Second version'}</label>
              <select
                id={`compare-version-${index}`}
                value={String(pickedVersions[index] ?? '')}
                onChange={(event) => {
                  const next: PickedVersions = [...pickedVersions];
                  next[index] = event.currentTarget.value === '' ? undefined : Number(event.currentTarget.value);
                  setPickedVersions(next);
                }}
              >
                <option value="">Newest</option>
                {(versionsOf[picked[index] ?? ''] ?? []).map((version) => (
                  <option key={version.version} value={String(version.version)}>
                    Version {version.version}
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
      <ProblemLine problem={problem} />
      <div aria-live="polite">
        {compared.length > 0 && (
          <div class="result">
            <DiffLegend removals={false} />
            <div class="columns">
              {compared.map(({ persona, version, result }, index) => (
                <figure key={index}>
                  <figcaption>{version === undefined ? nameOf(persona) : `${nameOf(persona)}, version ${version}`}</figcaption>
                  {'error' in result ? <RefineFailure error={result.error} providerName={providerNames(providers ?? [])} /> : <DiffText parts={result.diff} side="after" />}
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
