/** `personas export | import | diff`: personas as reviewable files. */
import { mkdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { type Persona, type PersonaRefine, PersonaRefineError, PreconditionFailedError } from '../index.js';
import { parseCommand } from './args.js';
import { describeError } from './describe-error.js';
import { type FileSample, fileSampleOf } from './file-samples.js';
import { type PlanEntry, countActions, detailLines, patchFor, personasWithFileSamples, planImport, summaryLine } from './import-plan.js';
import { type CliContext, UsageError } from './io.js';
import { jsonEqual } from './json-diff.js';
import { fileNamesFor, formatPersonaFile, readPersonaFiles } from './persona-files.js';
import { replaceFile, writeNewFile } from './safe-files.js';

const DEFAULT_DIR = 'personas';

function onePath(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`personas ${command} takes one DIR or FILE, got ${positionals.length}`);
  return positionals[0]!;
}

/**
 * A persona that already has a file in DIR (matched as import matches: by id, else by name) is
 * written back to that file, so its name survives renames and a pull request shows an edit, not a
 * move; the others get a new file under a generated name where nothing exists yet. Every other
 * file (junk, a file that matches nothing, a symlink) is left alone: never overwritten, never
 * written through.
 */
export async function exportPersonas(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { dir: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError(`personas export takes no arguments; use --dir DIR`);
  const shownDir = values.dir ?? DEFAULT_DIR;
  const dir = resolve(io.cwd, shownDir);
  const personas = await client().personas.list();
  await mkdir(dir, { recursive: true });

  const existing = planImport(await readPersonaFiles(dir, shownDir), personas);
  const fileOf = new Map<string, string>();
  for (const entry of existing) {
    if (entry.action === 'update' || entry.action === 'unchanged') fileOf.set(entry.current.id, basename(entry.path));
    if (entry.action === 'error') io.stdout.write(`note: ${entry.path} left as is: ${entry.problem}\n`);
  }
  for (const persona of personas) {
    const text = formatPersonaFile(persona, await fileSamples(client(), persona.id));
    const own = fileOf.get(persona.id);
    if (own !== undefined) await replaceFile(join(dir, own), text);
    else await writeNewPersonaFile(dir, persona, text);
  }
  io.stdout.write(`exported ${personas.length} persona${personas.length === 1 ? '' : 's'} to ${shownDir}\n`);
  return 0;
}

/** One line per persona, oldest first: its id and its name (as JSON, so spaces and quotes are unambiguous). */
export async function listPersonas(args: string[], { io, client }: CliContext): Promise<number> {
  const { positionals } = parseCommand(args, {});
  if (positionals.length > 0) throw new UsageError('personas list takes no arguments');
  for (const persona of await client().personas.list()) io.stdout.write(`${persona.id}  ${JSON.stringify(persona.name)}\n`);
  return 0;
}

/** The persona's samples as its file holds them. */
async function fileSamples(client: PersonaRefine, id: string): Promise<FileSample[]> {
  return (await client.personas.samples.get(id)).samples.map(fileSampleOf);
}

async function writeNewPersonaFile(dir: string, persona: Persona, text: string): Promise<void> {
  for (const name of fileNamesFor(persona)) if (await writeNewFile(join(dir, name), text)) return;
  throw new Error(`no free file name for persona ${persona.id} in ${dir}; clear out the files named after it`);
}

async function planFor(path: string, { io, client }: CliContext): Promise<PlanEntry[]> {
  const files = await readPersonaFiles(resolve(io.cwd, path), path);
  if (files.length === 0) throw new UsageError(`${path} holds no .json files`);
  const personas = await client().personas.list();
  const samples = new Map<string, FileSample[]>();
  for (const id of personasWithFileSamples(files, personas)) samples.set(id, await fileSamples(client(), id));
  return planImport(files, personas, samples);
}

function describeCounts(plan: PlanEntry[]): string {
  const counts = countActions(plan);
  const parts = [`${counts.create} to create`, `${counts.update} to update`, `${counts.unchanged} unchanged`];
  if (counts.error > 0) parts.push(`${counts.error} with errors`);
  return parts.join(', ');
}

/** Exit code: 0 when the server already matches the files, 1 when import would change something or a file is wrong. */
export async function diffPersonas(args: string[], context: CliContext): Promise<number> {
  const { positionals } = parseCommand(args, {});
  const plan = await planFor(onePath(positionals, 'diff'), context);
  const out = context.io.stdout;
  for (const entry of plan) if (entry.action !== 'unchanged') out.write(`${detailLines(entry).join('\n')}\n`);
  out.write(`${describeCounts(plan)}\n`);
  return plan.every((entry) => entry.action === 'unchanged') ? 0 : 1;
}

type Change = Extract<PlanEntry, { action: 'create' | 'update' }>;

export async function importPersonas(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { yes: { type: 'boolean', short: 'y' } });
  const plan = await planFor(onePath(positionals, 'import'), context);
  const { io } = context;
  for (const entry of plan) io.stdout.write(`${summaryLine(entry)}\n`);
  io.stdout.write(`${describeCounts(plan)}\n`);
  if (plan.some((entry) => entry.action === 'error')) {
    io.stderr.write('nothing applied: fix the errors above first\n');
    return 1;
  }
  const work = plan.filter((entry): entry is Change => entry.action === 'create' || entry.action === 'update');
  if (work.length === 0) return 0;
  if (!values.yes) {
    io.stdout.write('rerun with --yes to apply\n');
    return 0;
  }
  let failed = 0;
  for (const entry of work) {
    try {
      io.stdout.write(`${await apply(entry, context)}\n`);
    } catch (error) {
      if (!(error instanceof PersonaRefineError)) throw error;
      failed++;
      io.stderr.write(`failed     ${entry.path}: ${describeError(error)}\n`);
    }
  }
  io.stdout.write(`applied ${work.length - failed} of ${work.length}\n`);
  return failed === 0 ? 0 : 1;
}

const countSamples = (count: number) => (count === 1 ? '1 sample' : `${count} samples`);

async function apply(entry: Change, { client }: CliContext): Promise<string> {
  const personas = client().personas;
  if (entry.action === 'create') {
    const created = await personas.create({ name: entry.desired.name, attributes: entry.desired.attributes });
    const samples = entry.desired.samples ?? [];
    // A persona made a moment ago has no samples anyone else could have edited: no If-Match.
    if (samples.length > 0) await personas.samples.replace(created.id, samples);
    return `created    ${entry.path} → ${created.id}${samples.length > 0 ? `, ${countSamples(samples.length)}` : ''}`;
  }
  const done: string[] = [];
  if (entry.changes.length > 0) {
    // The plan was made from a listing; If-Match with a fresh ETag keeps us from overwriting an
    // edit someone made since, and the comparison catches one made between listing and now.
    const latest = await personas.get(entry.current.id);
    if (latest.name !== entry.current.name || !jsonEqual(latest.attributes, entry.current.attributes)) {
      throw new PreconditionFailedError({ message: 'changed on the server since the plan was made; run import again' });
    }
    const updated = await personas.update(entry.current.id, patchFor(entry), { ifMatch: latest.etag });
    done.push(`version ${updated.etag.replaceAll('"', '')}`);
  }
  if (entry.samples) {
    // The same guard for the samples, with their own ETag (editing the persona does not change it).
    const latest = await personas.samples.get(entry.current.id);
    if (!jsonEqual(latest.samples.map(fileSampleOf), entry.samples.current)) {
      throw new PreconditionFailedError({ message: `samples changed on the server since the plan was made; run import again${done.length > 0 ? ` (${done[0]} was applied)` : ''}` });
    }
    const replaced = await personas.samples.replace(entry.current.id, entry.desired.samples ?? [], { ifMatch: latest.etag });
    done.push(countSamples(replaced.samples.length));
  }
  return `updated    ${entry.path} → ${done.join(', ')}`;
}
