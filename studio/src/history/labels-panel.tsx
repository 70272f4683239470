/** A persona's labels: each one shown with the version it points at, movable and removable; new ones settable. */
import { useState } from 'preact/hooks';
import type { PersonaLabels, PersonaVersion } from '../api/types.js';
import { useScopes } from '../scopes.js';

interface LabelsPanelProps {
  labels: PersonaLabels;
  versions: PersonaVersion[];
  busy: boolean;
  onSet(label: string, version: number): void;
  onRemove(label: string): void;
  /** Labels whose policy protects them (moving one needs labels:protected). */
  protectedLabels?: ReadonlySet<string>;
}

const LABEL_SHAPE = /^[a-z0-9-]{1,40}$/;

function VersionSelect({ id, value, versions, onChange }: { id: string; value: number; versions: PersonaVersion[]; onChange(v: number): void }) {
  return (
    <select id={id} value={String(value)} onChange={(event) => onChange(Number(event.currentTarget.value))}>
      {[...versions].reverse().map((v) => (
        <option key={v.version} value={String(v.version)}>
          Version {v.version}
        </option>
      ))}
    </select>
  );
}

export function LabelsPanel({ labels, versions, busy, onSet, onRemove, protectedLabels = new Set(['production']) }: LabelsPanelProps) {
  const { lacking } = useScopes();
  /** Why this key may not move or remove `label`; undefined when it may. */
  const whyNot = (label: string) => lacking('labels:write') ?? (protectedLabels.has(label) ? lacking('labels:protected') : undefined);
  const newest = versions.at(-1)?.version ?? 1;
  const [moves, setMoves] = useState<Record<string, number>>({});
  const [name, setName] = useState('');
  const [target, setTarget] = useState(newest);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const entries = Object.entries(labels);

  return (
    <section aria-labelledby="labels-heading" class="labels">
      <h3 id="labels-heading">Labels</h3>
      <p class="hint">
        Applications refine with <code>personaLabel</code> to follow a label; moving <code>production</code> back to an older version is a
        rollback. <code>latest</code> always means the newest version.
      </p>
      {entries.length === 0 && <p>No labels yet.</p>}
      <ul class="label-list">
        {entries.map(([label, version]) => {
          const chosen = moves[label] ?? version;
          const denied = whyNot(label);
          return (
            <li key={label}>
              <label for={`label-${label}`}>
                <strong>{label}</strong> → version {version}; move to
              </label>{' '}
              <VersionSelect id={`label-${label}`} value={chosen} versions={versions} onChange={(v) => setMoves({ ...moves, [label]: v })} />{' '}
              <button type="button" disabled={busy || chosen === version || denied !== undefined} title={denied} onClick={() => onSet(label, chosen)}>
                Move {label}
              </button>{' '}
              <button type="button" class="secondary" disabled={busy || denied !== undefined} title={denied} onClick={() => onRemove(label)}>
                Remove {label}
              </button>
              {denied && <span class="hint"> {protectedLabels.has(label) ? `${label} is protected. ` : ''}{denied}</span>}
            </li>
          );
        })}
      </ul>
      <form
        noValidate
        class="label-form"
        onSubmit={(event) => {
          event.preventDefault();
          const label = name.trim();
          if (!LABEL_SHAPE.test(label)) return setProblem('A label is 1-40 lowercase letters, digits or "-".');
          if (label === 'latest') return setProblem('"latest" always means the newest version; choose another name.');
          const denied = whyNot(label);
          if (denied) return setProblem(`${protectedLabels.has(label) ? `${label} is protected. ` : ''}${denied}`);
          setProblem(undefined);
          setName('');
          onSet(label, target);
        }}
      >
        <div class="field">
          <label for="new-label">New label</label>
          <input id="new-label" value={name} placeholder="production" onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="new-label-version">Points at</label>
          <VersionSelect id="new-label-version" value={target} versions={versions} onChange={setTarget} />
        </div>
        <button type="submit" disabled={busy || lacking('labels:write') !== undefined} title={lacking('labels:write')}>
          Set label
        </button>
      </form>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
    </section>
  );
}
