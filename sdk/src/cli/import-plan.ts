/**
 * What `personas import` would do with each file, decided before anything is written: a file
 * matches its persona by id, or by name when it has none; a file is the whole persona, so an
 * absent `attributes` means `{}`. Its `samples`, when it has them, are the persona's whole set;
 * without them the persona's samples are left alone (an old file, or one the studio wrote, never
 * wipes a set). Anything ambiguous is an error for the whole plan rather than a guess, because a
 * wrong guess overwrites someone's persona.
 */
import type { Persona, UpdatePersonaInput } from '../index.js';
import type { FileSample } from './file-samples.js';
import { targetOf } from './import-target.js';
import { type FieldChange, diffJson, formatChange } from './json-diff.js';
import type { DesiredPersona, PersonaFile } from './persona-files.js';
import { type SampleChange, formatSampleChange, sampleChanges } from './sample-changes.js';

/** Each persona's samples as a file holds them, by persona id: those the plan compares files with. */
export type ServerSamples = ReadonlyMap<string, readonly FileSample[]>;

/** A file's samples against the persona's: `current` is what the import checks is still there before it replaces them. */
export interface SamplesUpdate {
  current: readonly FileSample[];
  changes: SampleChange[];
}

export type PlanEntry =
  | { action: 'create'; path: string; desired: DesiredPersona; changes: FieldChange[]; sampleChanges: SampleChange[] }
  | { action: 'update'; path: string; desired: DesiredPersona; current: Persona; changes: FieldChange[]; samples: SamplesUpdate | undefined }
  | { action: 'unchanged'; path: string; current: Persona }
  | { action: 'error'; path: string; problem: string };

/** The personas whose samples a plan needs: those a file with `samples` describes. */
export function personasWithFileSamples(files: PersonaFile[], server: Persona[]): string[] {
  const ids = files.flatMap((file) => {
    if ('problem' in file || file.persona.samples === undefined) return [];
    const target = targetOf(file.persona, server);
    return typeof target === 'object' ? [target.id] : [];
  });
  return [...new Set(ids)];
}

const comparable = (persona: { name: string; attributes: Record<string, unknown> }) => ({
  name: persona.name,
  attributes: persona.attributes,
});

export function planImport(files: PersonaFile[], server: Persona[], serverSamples: ServerSamples = new Map()): PlanEntry[] {
  const claimedBy = new Map<string, string>();
  return files.map((file): PlanEntry => {
    if ('problem' in file) return { action: 'error', path: file.path, problem: file.problem };
    const desired = file.persona;
    const target = targetOf(desired, server);
    if (typeof target === 'string') return { action: 'error', path: file.path, problem: target };
    if (target === undefined) {
      return { action: 'create', path: file.path, desired, changes: diffJson({}, comparable(desired)), sampleChanges: sampleChanges([], desired.samples ?? []) };
    }
    const other = claimedBy.get(target.id);
    if (other !== undefined) return { action: 'error', path: file.path, problem: `describes the same persona (${target.id}) as ${other}` };
    claimedBy.set(target.id, file.path);
    const changes = diffJson(comparable(target), comparable(desired));
    const current = serverSamples.get(target.id) ?? [];
    const samples = desired.samples === undefined ? [] : sampleChanges(current, desired.samples);
    return changes.length === 0 && samples.length === 0
      ? { action: 'unchanged', path: file.path, current: target }
      : { action: 'update', path: file.path, desired, current: target, changes, samples: samples.length === 0 ? undefined : { current, changes: samples } };
  });
}

/** Only the fields that change: PATCH keeps what it is not given. */
export function patchFor(entry: Extract<PlanEntry, { action: 'update' }>): UpdatePersonaInput {
  const changed = new Set(entry.changes.map((change) => change.path.split(/[.[]/)[0]));
  return {
    ...(changed.has('name') ? { name: entry.desired.name } : {}),
    ...(changed.has('attributes') ? { attributes: entry.desired.attributes } : {}),
  };
}

/** One line per file: `update  personas/bot.0a1b2c3d.json  "Bot" (attributes.tone)`. */
export function summaryLine(entry: PlanEntry): string {
  switch (entry.action) {
    case 'create': {
      const count = entry.desired.samples?.length ?? 0;
      return `create     ${entry.path}  ${JSON.stringify(entry.desired.name)}${count === 0 ? '' : ` (${count === 1 ? '1 sample' : `${count} samples`})`}`;
    }
    case 'update': {
      const changed = [...entry.changes.map((c) => c.path), ...(entry.samples ? [describeSampleChanges(entry.samples.changes)] : [])];
      return `update     ${entry.path}  ${JSON.stringify(entry.current.name)} (${changed.join(', ')})`;
    }
    case 'unchanged':
      return `unchanged  ${entry.path}`;
    case 'error':
      return `error      ${entry.path}: ${entry.problem}`;
  }
}

/** `samples: 1 added, 2 removed`, or `samples: reordered`. */
function describeSampleChanges(changes: SampleChange[]): string {
  const added = changes.filter((change) => change.kind === 'added').length;
  const removed = changes.filter((change) => change.kind === 'removed').length;
  if (added === 0 && removed === 0) return 'samples: reordered';
  return `samples: ${[added > 0 ? `${added} added` : '', removed > 0 ? `${removed} removed` : ''].filter(Boolean).join(', ')}`;
}

function sampleChangesOf(entry: PlanEntry): SampleChange[] {
  if (entry.action === 'create') return entry.sampleChanges;
  return entry.action === 'update' ? (entry.samples?.changes ?? []) : [];
}

/** The summary line followed by each field change and each sample change, indented. */
export function detailLines(entry: PlanEntry): string[] {
  const changes = entry.action === 'create' || entry.action === 'update' ? entry.changes : [];
  return [summaryLine(entry), ...changes.map((change) => `    ${formatChange(change)}`), ...sampleChangesOf(entry).map((change) => `    ${formatSampleChange(change)}`)];
}

export function countActions(plan: PlanEntry[]): Record<PlanEntry['action'], number> {
  const counts = { create: 0, update: 0, unchanged: 0, error: 0 };
  for (const entry of plan) counts[entry.action]++;
  return counts;
}
