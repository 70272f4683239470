/** The account's personas, oldest first as the API lists them, with new / export all / import. */
import type { Persona } from '../api/types.js';
import { NEW_PERSONA_HREF, personaHref } from '../routing.js';

interface PersonaListProps {
  personas: Persona[] | undefined;
  currentId: string | undefined;
  onExportAll: () => void;
  onImport: () => void;
}

/**
 * The end of the id, which tells apart personas that share a name. The end, not the start: a
 * UUIDv7 starts with its creation time, which personas created together share.
 */
export const shortId = (id: string) => id.slice(-6);

export function PersonaList({ personas, currentId, onExportAll, onImport }: PersonaListProps) {
  const names = new Map<string, number>();
  for (const persona of personas ?? []) names.set(persona.name, (names.get(persona.name) ?? 0) + 1);
  return (
    <nav aria-labelledby="personas-heading" class="persona-list">
      <h2 id="personas-heading">Personas</h2>
      <a class="button" href={NEW_PERSONA_HREF}>
        New persona
      </a>
      {personas === undefined ? (
        <p role="status">Loading…</p>
      ) : personas.length === 0 ? (
        <p>No personas yet.</p>
      ) : (
        <ul>
          {personas.map((persona) => (
            <li key={persona.id}>
              <a href={personaHref(persona.id)} aria-current={persona.id === currentId ? 'page' : undefined}>
                {persona.name}
                {(names.get(persona.name) ?? 0) > 1 && (
                  <span class="persona-id" title={persona.id}>
                    {' '}
                    · {shortId(persona.id)}
                  </span>
                )}
              </a>
            </li>
          ))}
        </ul>
      )}
      <div class="actions">
        <button type="button" class="secondary" disabled={!personas?.length} onClick={onExportAll}>
          Export all
        </button>
        <button type="button" class="secondary" onClick={onImport}>
          Import…
        </button>
      </div>
    </nav>
  );
}
