/**
 * What `personas import` would do with each file, decided before anything is written: a file
 * matches its persona by id, or by name when it has none; a file is the whole persona, so an
 * absent `attributes` means `{}`. Anything ambiguous is an error for the whole plan rather than
 * a guess, because a wrong guess overwrites someone's persona.
 */
import type { Persona, UpdatePersonaInput } from '../index.js';
import { targetOf } from './import-target.js';
import { type FieldChange, diffJson, formatChange } from './json-diff.js';
import type { DesiredPersona, PersonaFile } from './persona-files.js';

export type PlanEntry =
  | { action: 'create'; path: string; desired: DesiredPersona; changes: FieldChange[] }
  | { action: 'update'; path: string; desired: DesiredPersona; current: Persona; changes: FieldChange[] }
  | { action: 'unchanged'; path: string; current: Persona }
  | { action: 'error'; path: string; problem: string };

const comparable = (persona: { name: string; attributes: Record<string, unknown> }) => ({
  name: persona.name,
  attributes: persona.attributes,
});

export function planImport(files: PersonaFile[], server: Persona[]): PlanEntry[] {
  const claimedBy = new Map<string, string>();
  return files.map((file): PlanEntry => {
    if ('problem' in file) return { action: 'error', path: file.path, problem: file.problem };
    const desired = file.persona;
    const target = targetOf(desired, server);
    if (typeof target === 'string') return { action: 'error', path: file.path, problem: target };
    if (target === undefined) {
      return { action: 'create', path: file.path, desired, changes: diffJson({}, comparable(desired)) };
    }
    const other = claimedBy.get(target.id);
    if (other !== undefined) return { action: 'error', path: file.path, problem: `describes the same persona (${target.id}) as ${other}` };
    claimedBy.set(target.id, file.path);
    const changes = diffJson(comparable(target), comparable(desired));
    return changes.length === 0
      ? { action: 'unchanged', path: file.path, current: target }
      : { action: 'update', path: file.path, desired, current: target, changes };
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
    case 'create':
      return `create     ${entry.path}  ${JSON.stringify(entry.desired.name)}`;
    case 'update':
      return `update     ${entry.path}  ${JSON.stringify(entry.current.name)} (${entry.changes.map((c) => c.path).join(', ')})`;
    case 'unchanged':
      return `unchanged  ${entry.path}`;
    case 'error':
      return `error      ${entry.path}: ${entry.problem}`;
  }
}

/** The summary line followed by each field change, indented. */
export function detailLines(entry: PlanEntry): string[] {
  const changes = entry.action === 'create' || entry.action === 'update' ? entry.changes : [];
  return [summaryLine(entry), ...changes.map((change) => `    ${formatChange(change)}`)];
}

export function countActions(plan: PlanEntry[]): Record<PlanEntry['action'], number> {
  const counts = { create: 0, update: 0, unchanged: 0, error: 0 };
  for (const entry of plan) counts[entry.action]++;
  return counts;
}
