/**
 * `keys list | create | rotate | revoke | current`: the account's API keys from the shell
 * (scope `keys:admin`; `keys current` for any key). A new secret is always the last line of
 * stdout, so scripts can take it with `tail -n 1`; it is printed nowhere else.
 */
import type { ApiKey, CreateKeyInput, Scope } from '../index.js';
import { parseCommand, positiveInteger } from './args.js';
import { type CliContext, UsageError } from './io.js';

const limitsText = (limits: ApiKey['limits']) =>
  [limits.tokensPerDay === null ? '' : `${limits.tokensPerDay} tokens/day`, limits.refinesPerMinute === null ? '' : `${limits.refinesPerMinute} refines/min`]
    .filter((s) => s !== '')
    .join(', ') || 'no limits';

export async function listKeys(args: string[], { io, client }: CliContext): Promise<number> {
  const { positionals } = parseCommand(args, {});
  if (positionals.length !== 0) throw new UsageError('keys list takes no arguments');
  for (const key of await client().keys.list()) {
    const expires = key.expiresAt === null ? '' : `  expires ${key.expiresAt}`;
    io.stdout.write(`${key.id}  ${key.prefix}…  ${JSON.stringify(key.name)}  ${key.scopes.join(',')}  (${limitsText(key.limits)})${expires}\n`);
  }
  return 0;
}

export async function createKey(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, {
    name: { type: 'string' },
    scopes: { type: 'string' },
    'expires-at': { type: 'string' },
    'tokens-per-day': { type: 'string' },
    'refines-per-minute': { type: 'string' },
  });
  if (positionals.length !== 0) throw new UsageError('keys create takes only options');
  if (values.name === undefined) throw new UsageError('keys create needs --name NAME');
  if (values.scopes === undefined) throw new UsageError('keys create needs --scopes, e.g. --scopes refine,personas:read');
  const input: CreateKeyInput = {
    name: values.name,
    scopes: values.scopes.split(',').map((s) => s.trim()).filter((s) => s !== '') as Scope[],
  };
  if (values['expires-at'] !== undefined) input.expiresAt = values['expires-at'];
  const limits: NonNullable<CreateKeyInput['limits']> = {};
  if (values['tokens-per-day'] !== undefined) limits.tokensPerDay = positiveInteger(values['tokens-per-day'], '--tokens-per-day');
  if (values['refines-per-minute'] !== undefined) limits.refinesPerMinute = positiveInteger(values['refines-per-minute'], '--refines-per-minute');
  if (Object.keys(limits).length > 0) input.limits = limits;
  const issued = await client().keys.create(input);
  io.stdout.write(`created key ${issued.id} (${issued.scopes.join(',')}; ${limitsText(issued.limits)}); the secret is shown only once:\n`);
  io.stdout.write(`${issued.secret}\n`);
  return 0;
}

export async function rotateKey(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { grace: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('keys rotate takes one key ID');
  const graceSeconds = values.grace === undefined ? 0 : values.grace === '0' ? 0 : positiveInteger(values.grace, '--grace');
  const rotated = await client().keys.rotate(positionals[0]!, { graceSeconds });
  const grace = rotated.previousSecretExpiresAt === null ? 'the old secret stops working within 5 s' : `the old secret works until ${rotated.previousSecretExpiresAt}`;
  io.stdout.write(`rotated key ${rotated.id}; ${grace}; the new secret is shown only once:\n`);
  io.stdout.write(`${rotated.secret}\n`);
  return 0;
}

export async function revokeKey(args: string[], { io, client }: CliContext): Promise<number> {
  const { positionals } = parseCommand(args, {});
  if (positionals.length !== 1) throw new UsageError('keys revoke takes one key ID');
  await client().keys.revoke(positionals[0]!);
  io.stdout.write(`revoked key ${positionals[0]}; it stops working within 5 seconds\n`);
  return 0;
}

export async function currentKey(args: string[], { io, client }: CliContext): Promise<number> {
  const { positionals } = parseCommand(args, {});
  if (positionals.length !== 0) throw new UsageError('keys current takes no arguments');
  const key = await client().keys.current();
  io.stdout.write(`${key.id}  ${key.scopes.join(',')}  (${limitsText(key.limits)})\n`);
  return 0;
}
