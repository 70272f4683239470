/**
 * A persona's labels: each one shown with the version it points at, movable and removable; new
 * ones settable. A refused move or removal is said beside the button that asked, which gets focus.
 */
import { useEffect, useState } from 'preact/hooks';
import type { PersonaLabels, PersonaVersion } from '../api/types.js';
import { useScopes } from '../scopes.js';

interface LabelsPanelProps {
  labels: PersonaLabels;
  versions: PersonaVersion[];
  busy: boolean;
  /** Each resolves to why the service refused, or undefined when it did not. */
  onSet(label: string, version: number): Promise<string | undefined>;
  onRemove(label: string): Promise<string | undefined>;
  /** Labels whose policy protects them (moving one needs labels:protected). */
  protectedLabels?: ReadonlySet<string>;
}

const LABEL_SHAPE = /^[a-z0-9-]{1,40}$/;

/** The id of a button that changes labels; a refusal is tied to it. */
type ControlId = `move-${string}` | `remove-${string}` | 'set-label';

function Refusal({ control, refusal }: { control: ControlId; refusal: { control: ControlId; message: string } | undefined }) {
  if (refusal?.control !== control) return null;
  return (
    <p role="alert" class="error refusal" id={`${control}-refusal`}>
      {refusal.message}
    </p>
  );
}

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
  const [refusal, setRefusal] = useState<{ control: ControlId; message: string } | undefined>(undefined);
  const entries = Object.entries(labels);
  // The button was disabled while its request ran, which lost focus; it gets it back once enabled.
  useEffect(() => {
    if (refusal && !busy) document.getElementById(refusal.control)?.focus();
  }, [refusal, busy]);
  const attempt = async (control: ControlId, request: Promise<string | undefined>) => {
    setRefusal(undefined);
    const message = await request;
    if (message !== undefined) setRefusal({ control, message });
    return message === undefined;
  };
  const describedBy = (control: ControlId) => (refusal?.control === control ? `${control}-refusal` : undefined);

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
              <button
                type="button"
                id={`move-${label}`}
                aria-describedby={describedBy(`move-${label}`)}
                disabled={busy || chosen === version || denied !== undefined}
                title={denied}
                onClick={() => void attempt(`move-${label}`, onSet(label, chosen))}
              >
                Move {label}
              </button>{' '}
              <button
                type="button"
                class="secondary"
                id={`remove-${label}`}
                aria-describedby={describedBy(`remove-${label}`)}
                disabled={busy || denied !== undefined}
                title={denied}
                onClick={() => void attempt(`remove-${label}`, onRemove(label))}
              >
                Remove {label}
              </button>
              {denied && <span class="hint"> {protectedLabels.has(label) ? `${label} is protected. ` : ''}{denied}</span>}
              <Refusal control={`move-${label}`} refusal={refusal} />
              <Refusal control={`remove-${label}`} refusal={refusal} />
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
          // Kept when refused, to retry once the reason is dealt with.
          void attempt('set-label', onSet(label, target)).then((done) => done && setName(''));
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
        <button
          type="submit"
          id="set-label"
          aria-describedby={describedBy('set-label')}
          disabled={busy || lacking('labels:write') !== undefined}
          title={lacking('labels:write')}
        >
          Set label
        </button>
        <Refusal control="set-label" refusal={refusal} />
      </form>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
    </section>
  );
}
