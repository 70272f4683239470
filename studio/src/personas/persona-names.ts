/** How personas are ordered and named wherever the studio shows them. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Persona } from '../api/types.js';

/**
 * The end of the id, which tells apart personas that share a name. The end, not the start: a
 * UUIDv7 starts with its creation time, which personas created together share.
 */
export const shortId = (id: string) => id.slice(-6);

/**
 * Newest first. Ids are time-ordered (UUIDv7), so they sort by creation without a date the API
 * does not send; the list is sorted here because every action (create, import, restore) changes it.
 */
export const newestFirst = (personas: readonly Persona[]): Persona[] => [...personas].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

/** Per persona id, the id's end when another persona in `personas` has the same name. */
export function duplicateSuffixes(personas: readonly Persona[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const persona of personas) counts.set(persona.name, (counts.get(persona.name) ?? 0) + 1);
  return new Map(personas.filter((persona) => (counts.get(persona.name) ?? 0) > 1).map((persona) => [persona.id, shortId(persona.id)]));
}

/** The name, with the id's end when it is not unique: for a place that holds only text (an option). */
export function distinctName(persona: Pick<Persona, 'id' | 'name'>, suffixes: ReadonlyMap<string, string>): string {
  const suffix = suffixes.get(persona.id);
  return suffix === undefined ? persona.name : `${persona.name} · ${suffix}`;
}

/** The suffixes of the account's personas (the workspace's list), for views that show one persona. */
export const PersonaSuffixesContext = createContext<ReadonlyMap<string, string>>(new Map());

/** A persona's name as a heading or a dialog shows it: with the id's end when another persona shares it. */
export function useDistinctName(): (persona: Pick<Persona, 'id' | 'name'>) => string {
  const suffixes = useContext(PersonaSuffixesContext);
  return (persona) => distinctName(persona, suffixes);
}
