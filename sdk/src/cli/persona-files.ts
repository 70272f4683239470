/**
 * Personas as files: one pretty JSON file per persona, `{ "id", "name", "attributes" }` in that
 * order with a trailing newline, so an export is byte-stable and a pull request shows only the
 * lines that changed.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Persona } from '../index.js';

/** What a file asks for. No `id` means "the persona with this name, or a new one". */
export interface DesiredPersona {
  id?: string;
  name: string;
  attributes: Record<string, unknown>;
}

export type PersonaFile = { path: string; persona: DesiredPersona } | { path: string; problem: string };

export function formatPersonaFile(persona: Persona): string {
  return `${JSON.stringify({ id: persona.id, name: persona.name, attributes: persona.attributes }, null, 2)}\n`;
}

function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || 'persona';
}

/**
 * `<slug-of-name>.<id-tag>.json`. The tag is the id's last 8 characters: ids are time-ordered
 * (UUIDv7), so their beginnings repeat for personas created the same minute while their ends are
 * random. Should two still collide, the whole id disambiguates.
 */
export function fileNameFor(persona: Persona, taken: ReadonlySet<string>): string {
  const safeId = persona.id.toLowerCase().replace(/[^a-z0-9-]/g, '');
  const short = `${slugOf(persona.name)}.${safeId.replace(/-/g, '').slice(-8)}.json`;
  return taken.has(short) ? `${slugOf(persona.name)}.${safeId}.json` : short;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks a parsed file against the persona shape; returns what is wrong, if anything. */
function desiredFrom(value: unknown): DesiredPersona | string {
  if (!isObject(value)) return 'must hold a JSON object { "id", "name", "attributes" }';
  const unknown = Object.keys(value).filter((key) => !['id', 'name', 'attributes'].includes(key));
  if (unknown.length > 0) return `unknown field ${unknown.map((key) => `"${key}"`).join(', ')}; a persona file holds only id, name and attributes`;
  const { id, name, attributes = {} } = value;
  if (id !== undefined && (typeof id !== 'string' || id === '')) return '"id" must be a non-empty string (or left out to match by name)';
  if (typeof name !== 'string' || name.trim() === '') return '"name" must be a non-empty string';
  if (!isObject(attributes)) return '"attributes" must be a JSON object';
  // The server trims names; comparing trimmed names keeps "  Bot " from looking like a change forever.
  return { ...(id === undefined ? {} : { id }), name: name.trim(), attributes };
}

async function readPersonaFile(path: string, label: string): Promise<PersonaFile> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    return { path: label, problem: `not valid JSON: ${(error as Error).message}` };
  }
  const desired = desiredFrom(parsed);
  return typeof desired === 'string' ? { path: label, problem: desired } : { path: label, persona: desired };
}

/** A directory's `*.json` files (sorted, not recursive) or a single file. `shown` prefixes labels. */
export async function readPersonaFiles(absolutePath: string, shown: string): Promise<PersonaFile[]> {
  if (!(await stat(absolutePath)).isDirectory()) return [await readPersonaFile(absolutePath, shown)];
  const names = (await readdir(absolutePath)).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(names.map((name) => readPersonaFile(join(absolutePath, name), join(shown, basename(name)))));
}
