/**
 * Admin CLI: `npm run cli -- accounts create NAME | keys create --account NAME | keys list | keys revoke ID`.
 * Talks to the same DATABASE_URL as the server. A new key is always the last line of stdout,
 * so scripts can take it with `tail -n 1`.
 */
import { AccountService } from '../accounts/account-service.js';
import { parseScopes } from '../accounts/scopes.js';
import { ConfigError, loadConfig } from '../config.js';
import { DomainError } from '../errors.js';
import { AccountRepository } from '../storage/account-repository.js';
import { openStorage } from '../storage/database.js';

const USAGE = `persona-refine admin CLI: for the operator of a persona-refine server, working
directly on its database (accounts and API keys). Users of a server refine text and manage
personas with the SDK's CLI instead: \`npx persona-refine --help\` (sdk/README.md).

usage: npm run cli -- <command>

commands:
  accounts create NAME          create an account and print its first API key (last line)
  keys create --account NAME [--scopes a,b] [--name NAME]
                                create another API key for an account (last line);
                                without --scopes it has every scope (*)
  keys list                     list keys (id, account, name, scopes, prefix, created, revoked); never full keys
  keys revoke ID                revoke a key; it stops working within 5 seconds

  help, --help, -h               print this

Uses DATABASE_URL, like the server.`;

class UsageError extends Error {}

type Command = (accounts: AccountService, args: string[]) => Promise<void>;

const print = (line: string) => process.stdout.write(`${line}\n`);

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  if (index !== -1) return args[index + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

const commands: Record<string, Command> = {
  'accounts create': async (accounts, [name]) => {
    if (!name) throw new UsageError('accounts create needs a NAME');
    const issued = await accounts.createAccount(name);
    print(`created account "${issued.accountName}" with key ${issued.keyId}; the key is shown only once:`);
    print(issued.key);
  },
  'keys create': async (accounts, args) => {
    const name = option(args, '--account');
    if (!name) throw new UsageError('keys create needs --account NAME');
    const scopesGiven = args.some((a) => a === '--scopes' || a.startsWith('--scopes='));
    const scopes = scopesGiven ? (option(args, '--scopes') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '') : undefined;
    // An empty list must not fall back to every scope (*): leave --scopes out for that.
    if (scopes !== undefined && scopes.length === 0) throw new UsageError('--scopes needs at least one scope (a,b); leave it out for a key with every scope (*)');
    const issued = await accounts.createKey(name, { name: option(args, '--name'), scopes });
    print(`created key ${issued.keyId} for account "${issued.accountName}"; the key is shown only once:`);
    print(issued.key);
  },
  'keys list': async (accounts) => {
    const keys = await accounts.listKeys();
    const rows = keys.map((k) => [k.id, k.account_name, k.name || '-', parseScopes(k.scopes).join(','), `${k.prefix}…`, k.created_at, k.revoked_at ?? '-']);
    const table = [['ID', 'ACCOUNT', 'NAME', 'SCOPES', 'PREFIX', 'CREATED', 'REVOKED'], ...rows];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
    for (const row of table) print(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
  },
  'keys revoke': async (accounts, [id]) => {
    if (!id) throw new UsageError('keys revoke needs a key ID (see keys list)');
    await accounts.revokeKey(id);
    print(`revoked key ${id}; it stops working within 5 seconds`);
  },
};

async function main(argv: string[]): Promise<number> {
  if (['help', '--help', '-h'].includes(argv[0] ?? '')) {
    print(USAGE);
    return 0;
  }
  const name = argv.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) {
    process.stderr.write(`${argv.length ? `unknown command "${argv.join(' ')}"\n\n` : ''}${USAGE}\n`);
    return 2;
  }
  const storage = await openStorage(loadConfig().database);
  try {
    await command(new AccountService(new AccountRepository(storage.db)), argv.slice(2));
    return 0;
  } finally {
    await storage.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    else if (error instanceof DomainError || error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`cli failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
