/** The account's personas, newest first, with new / export all / import (new and import only for a key that may write). */
import type { Persona } from '../api/types.js';
import { duplicateSuffixes } from '../personas/persona-names.js';
import { DRAFT_PERSONA_HREF, NEW_PERSONA_HREF, personaHref } from '../routing.js';
import { useScopes } from '../scopes.js';

interface PersonaListProps {
  personas: Persona[] | undefined;
  currentId: string | undefined;
  onExportAll: () => void;
  onImport: () => void;
}

export function PersonaList({ personas, currentId, onExportAll, onImport }: PersonaListProps) {
  const suffixes = duplicateSuffixes(personas ?? []);
  // Offered only to a key that may create personas: a control it could only fail with is noise.
  const mayWrite = useScopes().can('personas:write');
  return (
    <nav aria-labelledby="personas-heading" class="persona-list">
      <h2 id="personas-heading">Personas</h2>
      {mayWrite && (
        <div class="new-persona">
          <a class="button" href={NEW_PERSONA_HREF}>
            New persona
          </a>
          <a class="button secondary" href={DRAFT_PERSONA_HREF}>
            New from examples
          </a>
        </div>
      )}
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
                {suffixes.has(persona.id) && (
                  <span class="persona-id" title={persona.id}>
                    {' '}
                    · {suffixes.get(persona.id)}
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
        {mayWrite && (
          <button type="button" class="secondary" onClick={onImport}>
            Import…
          </button>
        )}
      </div>
    </nav>
  );
}
