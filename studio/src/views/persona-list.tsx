/** The account's personas, oldest first as the API lists them, with new / export all / import. */
import type { Persona } from '../api/types.js';
import { NEW_PERSONA_HREF, personaHref } from '../routing.js';

interface PersonaListProps {
  personas: Persona[] | undefined;
  currentId: string | undefined;
  onExportAll: () => void;
  onImport: () => void;
}

export function PersonaList({ personas, currentId, onExportAll, onImport }: PersonaListProps) {
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
