/**
 * Loading, saving and deleting one persona. Saves send the ETag they started from as If-Match;
 * a 412 means someone else saved in between, and the person chooses: reload theirs, or
 * overwrite with theirs re-read first (so a third save in between is still caught).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi, VersionedPersona } from '../api/client.js';
import type { Attributes, Persona, PersonaDraft } from '../api/types.js';
import { type PersonaField, personaFieldOf, plainError } from '../api/plain-errors.js';
import { sameJson } from '../personas/attributes.js';

export type FieldErrors = Partial<Record<PersonaField, string>>;

export interface PersonaEditing {
  loaded: VersionedPersona | undefined;
  draft: PersonaDraft;
  loading: boolean;
  saving: boolean;
  dirty: boolean;
  errors: FieldErrors;
  conflict: boolean;
  setName(name: string): void;
  setAttributes(attributes: Attributes): void;
  save(): Promise<void>;
  reloadTheirs(): Promise<void>;
  overwrite(): Promise<void>;
  dismissConflict(): void;
  remove(): Promise<boolean>;
}

export interface EditingCallbacks {
  onSaved(persona: Persona, created: boolean): void;
  onNotice(message: string): void;
}

const EMPTY: PersonaDraft = { name: '', attributes: {} };
const draftOf = ({ name, attributes }: Persona): PersonaDraft => ({ name, attributes });

function errorsFor(error: unknown): FieldErrors {
  if (!(error instanceof ApiError)) throw error;
  if (error.status === 400) return { [personaFieldOf(error.message)]: plainError(error) };
  return { general: plainError(error) };
}

/** `initial`: what a new persona starts as (a draft from samples); nothing by default. */
export function usePersonaEditing(api: StudioApi, id: string | undefined, callbacks: EditingCallbacks, initial: PersonaDraft = EMPTY): PersonaEditing {
  const [loaded, setLoaded] = useState<VersionedPersona | undefined>(undefined);
  const [draft, setDraft] = useState<PersonaDraft>(initial);
  const [loading, setLoading] = useState(id !== undefined);
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [conflict, setConflict] = useState(false);

  const show = (version: VersionedPersona) => {
    setLoaded(version);
    setDraft(draftOf(version.persona));
  };

  // The editor is keyed by id (views/app.tsx), so this runs once per persona.
  useEffect(() => {
    if (id === undefined) return;
    let current = true;
    api
      .getPersona(id)
      .then((version) => current && show(version))
      .catch((error: unknown) => current && setErrors(errorsFor(error)))
      .finally(() => current && setLoading(false));
    return () => {
      current = false;
    };
  }, [id]);

  const dirty = !sameJson(draft, loaded ? draftOf(loaded.persona) : EMPTY);
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const write = async (etag: string | undefined) => {
    setSaving(true);
    setErrors({});
    try {
      const created = !loaded;
      const version = loaded ? await api.updatePersona(loaded.persona.id, draft, etag) : await api.createPersona(draft);
      show(version);
      callbacks.onNotice(created ? `Created “${version.persona.name}”.` : `Saved “${version.persona.name}”.`);
      callbacks.onSaved(version.persona, created);
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) setConflict(true);
      else setErrors(errorsFor(error));
    } finally {
      setSaving(false);
    }
  };

  return {
    loaded,
    draft,
    loading,
    saving,
    dirty,
    errors,
    conflict,
    setName: (name) => setDraft((current) => ({ ...current, name })),
    setAttributes: (attributes) => setDraft((current) => ({ ...current, attributes })),
    save: () => write(loaded?.etag),
    async reloadTheirs() {
      setConflict(false);
      if (!loaded) return;
      try {
        show(await api.getPersona(loaded.persona.id));
        callbacks.onNotice('Reloaded the current version; your changes were discarded.');
      } catch (error) {
        setErrors(errorsFor(error));
      }
    },
    async overwrite() {
      setConflict(false);
      if (!loaded) return;
      try {
        await write((await api.getPersona(loaded.persona.id)).etag);
      } catch (error) {
        setErrors(errorsFor(error));
      }
    },
    dismissConflict: () => setConflict(false),
    async remove() {
      if (!loaded) return false;
      try {
        await api.deletePersona(loaded.persona.id, loaded.etag);
        callbacks.onNotice(`Deleted “${loaded.persona.name}”.`);
        return true;
      } catch (error) {
        const changed = error instanceof ApiError && error.status === 412;
        setErrors(changed ? { general: 'Someone else changed this persona since you opened it. Reload it before deleting.' } : errorsFor(error));
        return false;
      }
    },
  };
}
