/**
 * Personas as files: one pretty JSON file per persona, `{ "id", "name", "attributes", "samples"? }`
 * in that order with a trailing newline, so an export is byte-stable and a pull request shows only
 * the lines that changed. `samples` (file-samples.ts) is written when the persona has any.
 */
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Persona } from '../index.js';
import { type FileSample, fileSamplesFrom } from './file-samples.js';

/** What a file asks for. No `id` means "the persona with this name, or a new one"; no `samples`, "leave them as they are". */
export interface DesiredPersona {
  id?: string;
  name: string;
  attributes: Record<string, unknown>;
  samples?: FileSample[];
}

export type PersonaFile = { path: string; persona: DesiredPersona } | { path: string; problem: string };

export function formatPersonaFile(persona: Persona, samples: readonly FileSample[]): string {
  const file = { id: persona.id, name: persona.name, attributes: persona.attributes, ...(samples.length === 0 ? {} : { samples }) };
  return `${JSON.stringify(file, null, 2)}\n`;
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
 * The names to try for a persona's new file, best first: `<slug-of-name>.<id-tag>.json`, where
 * the tag is the id's last 8 characters (ids are time-ordered UUIDv7s, so their beginnings
 * repeat for personas created the same minute while their ends are random); then the whole id;
 * then the whole id and a counter, should even that name be taken (by junk, a hand-made file or
 * a symlink: export writes only where nothing is).
 */
export function* fileNamesFor(persona: Persona): Generator<string> {
  const safeId = persona.id.toLowerCase().replace(/[^a-z0-9-]/g, '');
  const slug = slugOf(persona.name);
  yield `${slug}.${safeId.replace(/-/g, '').slice(-8)}.json`;
  yield `${slug}.${safeId}.json`;
  for (let n = 2; n <= 100; n++) yield `${slug}.${safeId}.${n}.json`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks a parsed file against the persona shape; returns what is wrong, if anything. */
function desiredFrom(value: unknown): DesiredPersona | string {
  if (!isObject(value)) return 'must hold a JSON object { "id", "name", "attributes", "samples"? }';
  const unknown = Object.keys(value).filter((key) => !['id', 'name', 'attributes', 'samples'].includes(key));
  if (unknown.length > 0) return `unknown field ${unknown.map((key) => `"${key}"`).join(', ')}; a persona file holds only id, name, attributes and samples`;
  const { id, name, attributes = {} } = value;
  if (id !== undefined && (typeof id !== 'string' || id === '')) return '"id" must be a non-empty string (or left out to match by name)';
  if (typeof name !== 'string' || name.trim() === '') return '"name" must be a non-empty string';
  if (!isObject(attributes)) return '"attributes" must be a JSON object';
  const samples = value.samples === undefined ? undefined : fileSamplesFrom(value.samples);
  if (typeof samples === 'string') return samples;
  // The server trims names; comparing trimmed names keeps "  Bot " from looking like a change forever.
  return { ...(id === undefined ? {} : { id }), name: name.trim(), attributes, ...(samples === undefined ? {} : { samples }) };
}

async function readPersonaFile(path: string, label: string, inFolder: boolean): Promise<PersonaFile> {
  // In a folder anyone may add names to, a link could point anywhere: never followed, read or written.
  if (inFolder && !(await lstat(path)).isFile()) return { path: label, problem: 'is a symbolic link or not a regular file; personas files must be plain files' };
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
  if (!(await stat(absolutePath)).isDirectory()) return [await readPersonaFile(absolutePath, shown, false)];
  const names = (await readdir(absolutePath)).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(names.map((name) => readPersonaFile(join(absolutePath, name), join(shown, basename(name)), true)));
}
