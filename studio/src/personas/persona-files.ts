/**
 * Personas as JSON files, in the format the SDK's CLI reads and writes: one pretty object
 * `{ "id", "name", "attributes" }` per persona with a trailing newline, or, for "export all",
 * an array of them. Importing matches a file's persona by its id if it has one, else by name, else creates it.
 * The CLI's files may also hold the persona's `samples`: the studio checks them as the CLI does
 * and leaves them out. It writes none either, and a file without `samples` leaves a persona's
 * samples as they are, so a studio export imported with the CLI never wipes a set; samples are
 * edited in the Evaluations view.
 */
import type { Attributes, Persona } from '../api/types.js';
import { fileSamplesFrom } from '../../../sdk/src/cli/file-samples.js';
import { targetOf } from '../../../sdk/src/cli/import-target.js';
import { isPlainObject, sameJson } from './attributes.js';

export const ALL_PERSONAS_FILE = 'personas.json';

export function formatPersonaFile(persona: Persona): string {
  return `${JSON.stringify(personaFileObject(persona), null, 2)}\n`;
}

export function formatPersonaCollection(personas: Persona[]): string {
  return `${JSON.stringify(personas.map(personaFileObject), null, 2)}\n`;
}

const personaFileObject = ({ id, name, attributes }: Persona) => ({ id, name, attributes });

/** `<slug-of-name>.<last 8 characters of the id>.json`, as the CLI names its files. */
export function fileNameFor(persona: Persona): string {
  const slug = persona.name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  const tag = persona.id.toLowerCase().replace(/[^a-z0-9]/g, '').slice(-8);
  return `${slug || 'persona'}.${tag}.json`;
}

/** What one persona in a file asks for; no `id` means "the persona with this name, or a new one". */
export interface DesiredPersona {
  id?: string;
  name: string;
  attributes: Attributes;
}

export interface ImportItem {
  /** Where it came from: the file name, with `[n]` for an entry of an array. */
  source: string;
  desired?: DesiredPersona;
  problem?: string;
}

function desiredFrom(value: unknown): DesiredPersona | string {
  if (!isPlainObject(value)) return 'must be a JSON object { "id", "name", "attributes" }';
  const unknown = Object.keys(value).filter((key) => !['id', 'name', 'attributes', 'samples'].includes(key));
  if (unknown.length > 0) return `has unknown field ${unknown.map((key) => `"${key}"`).join(', ')}; a persona has only id, name, attributes and samples`;
  const { id, name, attributes = {} } = value;
  if (id !== undefined && (typeof id !== 'string' || id === '')) return '"id" must be a non-empty string, or left out';
  if (typeof name !== 'string' || name.trim() === '') return '"name" must be a non-empty string';
  if (!isPlainObject(attributes)) return '"attributes" must be a JSON object';
  // Checked so a file the CLI would refuse is refused here too; not imported (see above).
  const samples = value.samples === undefined ? undefined : fileSamplesFrom(value.samples);
  if (typeof samples === 'string') return samples;
  // The service trims names; comparing trimmed names keeps " Bot " from looking changed forever.
  return { ...(id === undefined ? {} : { id }), name: name.trim(), attributes };
}

/** The personas in one file's text: an object, or an array of them. */
export function readPersonaFile(fileName: string, text: string): ImportItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return [{ source: fileName, problem: `is not valid JSON (${(error as Error).message})` }];
  }
  const entries = Array.isArray(parsed) ? parsed.map((value, index) => [`${fileName} [${index + 1}]`, value] as const) : [[fileName, parsed] as const];
  if (entries.length === 0) return [{ source: fileName, problem: 'holds an empty list' }];
  return entries.map(([source, value]) => {
    const desired = desiredFrom(value);
    return typeof desired === 'string' ? { source, problem: desired } : { source, desired };
  });
}

export type ImportStep =
  | { action: 'create'; source: string; desired: DesiredPersona }
  | { action: 'update'; source: string; desired: DesiredPersona; current: Persona }
  | { action: 'unchanged'; source: string; current: Persona }
  | { action: 'error'; source: string; problem: string };

/** Decides everything before anything is written, so a mistake in one file changes nothing. */
export function planImport(items: ImportItem[], existing: Persona[]): ImportStep[] {
  const claimedBy = new Map<string, string>();
  return items.map((item): ImportStep => {
    if (!item.desired) return { action: 'error', source: item.source, problem: item.problem ?? 'is not a persona' };
    const { desired, source } = item;
    const target = targetOf(desired, existing);
    if (typeof target === 'string') return { action: 'error', source, problem: target };
    if (!target) return { action: 'create', source, desired };
    const other = claimedBy.get(target.id);
    if (other !== undefined) return { action: 'error', source, problem: `describes the same persona as ${other}` };
    claimedBy.set(target.id, source);
    const unchanged = target.name === desired.name && sameJson(target.attributes, desired.attributes);
    return unchanged ? { action: 'unchanged', source, current: target } : { action: 'update', source, desired, current: target };
  });
}
