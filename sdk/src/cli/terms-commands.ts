/**
 * `terms import FILE.csv --persona ID` and `terms export --persona ID [--out FILE.csv]`: a
 * persona's term base (`attributes.terms`) kept in a spreadsheet. Import replaces the whole term
 * base in one PATCH conditional on the version it read (If-Match), so a change made meanwhile is
 * never overwritten; the other attributes are written back as read.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PersonaRefineError } from '../errors.js';
import { parseCommand } from './args.js';
import { type CliContext, UsageError } from './io.js';
import { replaceFile } from './safe-files.js';
import { CsvError, termsFromCsv, termsToCsv } from './term-csv.js';

/** A CSV that cannot become the term base: exit 2, like any other call the CLI cannot make as given. */
const EXIT_BAD_FILE = 2;

export async function importTerms(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { persona: { type: 'string' } });
  const personaId = values.persona;
  if (!personaId) throw new UsageError('--persona ID is required');
  if (positionals.length !== 1) throw new UsageError(`terms import takes one FILE.csv, got ${positionals.length}`);
  const file = positionals[0]!;
  const text = await readFile(resolve(io.cwd, file), 'utf8');
  let parsed: ReturnType<typeof termsFromCsv>;
  try {
    parsed = termsFromCsv(text);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    io.stderr.write(`persona-refine: ${file} ${error.message}\n`);
    return EXIT_BAD_FILE;
  }
  const personas = client().personas;
  const persona = await personas.get(personaId);
  const attributes: Record<string, unknown> = { ...persona.attributes };
  if (parsed.entries.length === 0) delete attributes.terms;
  else attributes.terms = parsed.entries;
  try {
    const updated = await personas.update(personaId, { attributes }, { ifMatch: persona.etag });
    io.stdout.write(`${parsed.entries.length} ${parsed.entries.length === 1 ? 'term' : 'terms'} imported into ${updated.id}\n`);
    return 0;
  } catch (error) {
    const at = error instanceof PersonaRefineError && error.status === 400 ? placeOf(error.message, parsed) : undefined;
    if (at === undefined) throw error;
    io.stderr.write(`persona-refine: ${file} ${at.message}\n`);
    return EXIT_BAD_FILE;
  }
}

/** The service names an entry (`attributes.terms.12.replaces.1 must be …`): the CSV line and column it came from. */
function placeOf(message: string, { lines, columns }: { lines: number[]; columns: string[] }): CsvError | undefined {
  const match = /attributes\.terms\.(\d+)(?:\.(\w+))?/.exec(message);
  const line = match ? lines[Number(match[1])] : undefined;
  if (line === undefined) return undefined;
  const column = columns.indexOf(match![2] ?? 'term');
  return new CsvError(line, column === -1 ? 1 : column + 1, column === -1 ? undefined : columns[column], message);
}

export async function exportTerms(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { persona: { type: 'string' }, out: { type: 'string' } });
  const personaId = values.persona;
  if (!personaId) throw new UsageError('--persona ID is required');
  if (positionals.length > 0) throw new UsageError(`terms export takes no FILE (use --out FILE.csv), got ${positionals.join(' ')}`);
  const persona = await client().personas.get(personaId);
  const terms = persona.attributes.terms;
  const csv = termsToCsv(Array.isArray(terms) ? terms : []);
  if (values.out === undefined) {
    io.stdout.write(csv);
    return 0;
  }
  await replaceFile(resolve(io.cwd, values.out), csv);
  io.stderr.write(`${Array.isArray(terms) ? terms.length : 0} terms written to ${values.out}\n`);
  return 0;
}
