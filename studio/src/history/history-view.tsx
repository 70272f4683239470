/**
 * A persona's history: every version with its time, key and labels; a word-level diff between
 * any two; restore after a confirmation (a new version, nothing rewritten); labels movable.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi, VersionedPersona } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { Persona, PersonaLabels, PersonaVersion } from '../api/types.js';
import { useFocusOnMount } from '../hooks.js';
import { DiffLegend, DiffText } from '../preview/refine-output.js';
import { wordDiff } from '../preview/word-diff.js';
import { personaHref } from '../routing.js';
import { useDistinctName } from '../personas/persona-names.js';
import { Dialog } from '../views/dialog.js';
import { LabelsPanel } from './labels-panel.js';
import { useScopes } from '../scopes.js';
import { labelsByVersion, versionText } from './version-text.js';
import { StatusLines } from '../views/status-lines.js';

interface HistoryViewProps {
  api: StudioApi;
  id: string;
  onRestored(persona: Persona): void;
}

interface Loaded {
  current: VersionedPersona;
  versions: PersonaVersion[];
  labels: PersonaLabels;
}

const describe = (error: unknown) => (error instanceof ApiError ? plainError(error) : 'Something went wrong; try again.');
const changedElsewhere = (error: unknown) => error instanceof ApiError && error.status === 412;
const CHANGED_ELSEWHERE = 'This persona changed since you opened its history, so nothing was done. The history below is now up to date: check it and try again.';

export function HistoryView({ api, id, onRestored }: HistoryViewProps) {
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [pair, setPair] = useState<[number, number] | undefined>(undefined);
  const [restoring, setRestoring] = useState<PersonaVersion | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnMount(heading, loaded !== undefined);
  const scopes = useScopes();
  const nameOf = useDistinctName();
  const cannotRestore = scopes.lacking('personas:write');
  // Which labels are protected (their policy; production by default), only asked when it matters.
  const [protectedLabels, setProtectedLabels] = useState<ReadonlySet<string>>(new Set(['production']));
  const labelNames = loaded ? Object.keys(loaded.labels).join(',') : '';
  useEffect(() => {
    if (!loaded || scopes.can('labels:protected') || !scopes.can('labels:write')) return;
    const names = [...new Set([...Object.keys(loaded.labels), 'production'])];
    // A policy that cannot be read counts as protected (fail closed): better a control disabled
    // for a moment than a production label offered to a key that may not move it.
    void Promise.all(names.map((label) => api.labelPolicy(id, label).then((p) => (p.protected ? label : undefined), () => label))).then(
      (found) => setProtectedLabels(new Set(found.filter((l): l is string => l !== undefined))),
    );
  }, [labelNames, scopes.granted]);

  const load = async () => {
    try {
      const [current, versions, labels] = await Promise.all([api.getPersona(id), api.listVersions(id), api.labels(id)]);
      setLoaded({ current, versions, labels });
      const newest = versions.at(-1)?.version ?? 1;
      setPair((previous) => previous ?? [versions.at(-2)?.version ?? newest, newest]);
    } catch (error) {
      setProblem(describe(error));
    }
  };
  useEffect(() => void load(), [id]);

  /**
   * Runs `work`. With `beside`, a refusal (a gate's 409, say) is handed back for the labels panel
   * to say next to the control that asked, where the eye and the focus are; otherwise it is shown
   * at the top.
   */
  const act = async (work: () => Promise<string>, { beside = false } = {}): Promise<string | undefined> => {
    setBusy(true);
    setProblem(undefined);
    try {
      const done = await work();
      // Said once the history shows it, so what is announced is what is on the screen.
      await load();
      setStatus(done);
    } catch (error) {
      if (!changedElsewhere(error)) {
        if (beside && error instanceof ApiError) return describe(error);
        setProblem(describe(error));
        return undefined;
      }
      // Reloaded first, so the retry carries the persona's new ETag.
      await load();
      setProblem(CHANGED_ELSEWHERE);
    } finally {
      setBusy(false);
    }
    return undefined;
  };

  const byNumber = useMemo(() => new Map(loaded?.versions.map((v) => [v.version, v]) ?? []), [loaded]);
  const diff = useMemo(() => {
    const [from, to] = pair ?? [];
    const a = from === undefined ? undefined : byNumber.get(from);
    const b = to === undefined ? undefined : byNumber.get(to);
    return a && b ? wordDiff(versionText(a), versionText(b)) : undefined;
  }, [pair, byNumber]);

  if (!loaded) {
    return problem ? (
      <p role="alert" class="error">
        {problem}
      </p>
    ) : (
      <p role="status">Loading…</p>
    );
  }
  const { current, versions, labels } = loaded;
  const newest = versions.at(-1)?.version;
  // The API lists versions oldest first; the newest is what a reader looks for first.
  const newestFirst = [...versions].reverse();
  const pointing = labelsByVersion(labels, newest);

  return (
    <section aria-labelledby="history-heading" class="history">
      <h2 id="history-heading" ref={heading} tabIndex={-1}>
        History of {nameOf(current.persona)}
      </h2>
      <p>
        <a href={personaHref(id)}>Edit this persona</a>
      </p>
      <StatusLines status={status} problem={problem} />

      <div class="table-scroll">
        <table class="versions">
          <caption>Versions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Saved</th>
              <th scope="col">By key</th>
              <th scope="col">Name</th>
              <th scope="col">Labels</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {newestFirst.map((version) => (
              <tr key={version.version}>
                <th scope="row">{version.version}</th>
                <td>
                  <time dateTime={version.createdAt}>{new Date(version.createdAt).toLocaleString()}</time>
                </td>
                <td class="key">{version.createdBy ?? '—'}</td>
                <td>{version.name}</td>
                <td>{(pointing.get(version.version) ?? []).join(', ')}</td>
                <td>
                  {version.version !== newest && (
                    <button type="button" class="secondary" disabled={busy || cannotRestore !== undefined} title={cannotRestore} onClick={() => setRestoring(version)}>
                      Restore version {version.version}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <section aria-labelledby="version-diff-heading" class="version-diff">
        <h3 id="version-diff-heading">Compare two versions</h3>
        <div class="columns">
          {(['From version', 'To version'] as const).map((label, index) => (
            <div class="field" key={label}>
              <label for={`diff-${index}`}>{label}</label>
              <select
                id={`diff-${index}`}
                value={String(pair?.[index] ?? '')}
                onChange={(event) => {
                  const next: [number, number] = [...(pair ?? [1, 1])];
                  next[index] = Number(event.currentTarget.value);
                  setPair(next);
                }}
              >
                {newestFirst.map((v) => (
                  <option key={v.version} value={String(v.version)}>
                    Version {v.version}
                  </option>
                ))}
              </select>
            </div>
          ))}
        </div>
        {diff && pair && (
          <div class="result">
            <DiffLegend />
            <div class="columns">
              <figure>
                <figcaption>Version {pair[0]}</figcaption>
                <DiffText parts={diff} side="before" />
              </figure>
              <figure>
                <figcaption>Version {pair[1]}</figcaption>
                <DiffText parts={diff} side="after" />
              </figure>
            </div>
          </div>
        )}
      </section>

      <LabelsPanel
        protectedLabels={protectedLabels}
        labels={labels}
        versions={versions}
        busy={busy}
        onSet={(label, version) =>
          act(
            async () => {
              await api.setLabel(id, label, version, current.etag);
              return `${label} now points at version ${version}.`;
            },
            { beside: true },
          )
        }
        onRemove={(label) =>
          act(
            async () => {
              await api.removeLabel(id, label, current.etag);
              return `Removed ${label}.`;
            },
            { beside: true },
          )
        }
      />

      {restoring && (
        <Dialog
          title={`Restore version ${restoring.version}?`}
          onCancel={() => setRestoring(undefined)}
          actions={
            <>
              <button
                type="button"
                onClick={() => {
                  const version = restoring.version;
                  setRestoring(undefined);
                  void act(async () => {
                    const restored = await api.restoreVersion(id, version, current.etag);
                    onRestored(restored.persona);
                    return `Restored version ${version} as version ${restored.etag?.replaceAll('"', '') ?? 'new'}.`;
                  });
                }}
              >
                Restore version {restoring.version}
              </button>
              <button type="button" class="secondary" autofocus onClick={() => setRestoring(undefined)}>
                Cancel
              </button>
            </>
          }
        >
          <p>
            Its name and attributes become a new version, {(newest ?? 0) + 1}. Nothing is deleted, and labels stay where they are: refines
            pinned to a label keep their version until you move it.
          </p>
        </Dialog>
      )}
    </section>
  );
}
