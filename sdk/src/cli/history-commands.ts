/** `personas history ID` and `personas label ID LABEL VERSION`: versions and labels from the shell. */
import { parseCommand, positiveInteger } from './args.js';
import { type CliContext, UsageError } from './io.js';

/**
 * One line per version, oldest first: number, time, acting key, name, and the labels pointing at
 * it (`latest` marks the newest), so a rollback target is easy to spot.
 */
export async function personaHistory(args: string[], { io, client }: CliContext): Promise<number> {
  const { positionals } = parseCommand(args, {});
  if (positionals.length !== 1) throw new UsageError(`personas history takes one persona ID, got ${positionals.length}`);
  const id = positionals[0]!;
  const personas = client().personas;
  const [versions, labels] = await Promise.all([personas.versions.list(id), personas.labels.get(id)]);
  const pointing = new Map<number, string[]>();
  for (const [label, version] of Object.entries(labels)) pointing.set(version, [...(pointing.get(version) ?? []), label]);
  const newest = versions.at(-1)?.version;
  for (const version of versions) {
    const tags = [...(pointing.get(version.version) ?? []), ...(version.version === newest ? ['latest'] : [])];
    const by = version.createdBy ?? '-';
    io.stdout.write(`${String(version.version).padStart(4)}  ${version.createdAt}  ${by}  ${JSON.stringify(version.name)}${tags.length ? `  [${tags.join(', ')}]` : ''}\n`);
  }
  return 0;
}

export async function labelPersona(args: string[], { io, client }: CliContext): Promise<number> {
  const { positionals } = parseCommand(args, {});
  if (positionals.length !== 3) throw new UsageError(`personas label takes ID LABEL VERSION, got ${positionals.length} arguments`);
  const [id, label, version] = positionals as [string, string, string];
  const labels = await client().personas.labels.set(id, label, positiveInteger(version, 'VERSION'));
  io.stdout.write(`${label} → version ${labels[label]}\n`);
  return 0;
}
