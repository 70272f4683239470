/**
 * The CLI as a function: `run(argv, io)` returns the exit code. 0 success; 1 something failed
 * (or, for `personas diff`, the server differs from the files); 2 the CLI was called wrongly;
 * 3 and 4: see exit-codes.ts.
 */
import { createRequire } from 'node:module';
import { describeError } from './describe-error.js';
import { type CliContext, type CliIo, DEFAULT_URL, UsageError, contextFor, withSafeOutput } from './io.js';
import { labelPersona, personaHistory } from './history-commands.js';
import { diffPersonas, exportPersonas, importPersonas, listPersonas } from './personas-commands.js';
import { checkCommand } from './check-command.js';
import { evalCommand } from './eval-command.js';
import { qualityCommand } from './quality-command.js';
import { EXIT_BELOW_BAR, EXIT_STREAM_REPLACED } from './exit-codes.js';
import { PROVIDER_KEY_VARIABLE, refineCommand } from './refine-command.js';
import { createKey, currentKey, listKeys, revokeKey, rotateKey } from './keys-commands.js';
import { MCP_USAGE, mcpCommand } from './mcp-command.js';
import { exportTerms, importTerms } from './terms-commands.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from './webhooks-commands.js';

/** From src/cli or dist/cli alike, the package's manifest is two folders up. */
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export const USAGE = `persona-refine ${VERSION}: the persona-refine SDK's command line, for users of a
persona-refine server: refine text with a persona, and keep personas as reviewable JSON files
(export, diff, import). It talks to the server's /v1 API with your API key. (Operating the
server itself — accounts, keys, migrations — is the admin CLI in the server's checkout,
\`npm run cli\`.)

Usage: persona-refine <command>

  personas list                     one line per persona: its id and name
  personas export [--dir DIR]       write one JSON file per persona into DIR (default ./personas)
  personas diff DIR|FILE            show what import would change, field by field;
                                    exit 1 when it would change anything
  personas import DIR|FILE [--yes]  show the plan (create / update / unchanged per file);
                                    apply it only with --yes (each update is a new version)
  personas history ID               list a persona's versions, oldest first, with their labels
  personas label ID LABEL VERSION   point LABEL (e.g. production) at VERSION; moving it back
                                    is a rollback
  terms import FILE.csv --persona ID
                                    replace the persona's term base with the CSV's rows
                                    (columns term,use,replaces,suggest,caseSensitive,forms,note;
                                    replaces separated by |); a bad row: exit 2 naming its
                                    line and column, nothing written
  terms export --persona ID [--out FILE.csv]
                                    the persona's term base as that CSV, to stdout or FILE
  refine --persona ID --provider NAME [--model M] [--provider-key-env VAR]
         [--out DIR] [--concurrency N] [FILE... | -]
                                    refine stdin to stdout, or files into --out DIR
                                    (N at a time, default 4)
  refine --stream --persona ID --provider NAME [--model M] [--provider-key-env VAR]
                                    refine stdin, printing the text as it arrives; rules
                                    still broken and tokens on stderr
  check FILE... --persona ID [--min-score N]
        [--judge-provider P --judge-key-env VAR [--judge-model M]]
                                    score each file against the persona (0-100): a table of
                                    file, score, rules, facts, voice, passed and findings;
                                    exit ${EXIT_BELOW_BAR} when a file does not pass (a required finding, under
                                    the persona's minScore or under N): a CI gate; with a
                                    judge (key from VAR) the voice is rated and scored too
  eval --persona ID --provider NAME [--version N | --label L] [--model M]
       [--provider-key-env VAR] [--judge] [--concurrency N] [--min-score N]
       [--min-pass-rate R] [--baseline EVAL_ID]
                                    evaluate a persona version on its samples: progress on
                                    stderr, a row per sample, the summary; exit ${EXIT_BELOW_BAR} under
                                    N or R or on a regression against the baseline run
  quality --persona ID [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--group-by day|version]
          [--json]                  the persona on live traffic, a row per UTC day (default:
                                    the last 30 days) or per version: answers, mean score,
                                    under minScore, with a required finding left, feedback
                                    up and down, findings by rule; --json as the API sends it
  keys list                         the account's API keys (never their secrets)
  keys create --name NAME --scopes a,b [--expires-at ISO] [--tokens-per-day N]
         [--refines-per-minute N]   a new key; its secret is the last line (shown once)
  keys rotate ID [--grace SECONDS]  a new secret (last line); the old one works SECONDS more
  keys revoke ID                    revoke a key (refused within 5 s)
  keys current                      the key you are using: id, scopes, limits
  webhooks list [--json]            the account's webhook endpoints (never their secrets)
  webhooks create --url URL --events a,b|* [--description TEXT] [--json]
                                    a new endpoint for those event types (* for all);
                                    its signing secret is the last line (shown only now)
  webhooks get ID [--json]          one endpoint: url, events, description, enabled or not
  webhooks update ID [--url URL] [--events a,b|*] [--description TEXT | --no-description]
         [--enable | --disable] [--json]
                                    change an endpoint; --enable sends again to one
                                    disabled after five days of failed deliveries
  webhooks delete ID                remove an endpoint (its pending deliveries dropped)
  webhooks test ID [--json]         send it a webhook.test event
  webhooks rotate-secret ID [--json]
                                    a new signing secret (last line, shown only now); the
                                    old one signs too for 24 hours
  webhooks deliveries ID [--limit N | --all] [--json]
                                    its deliveries, newest first (default the last 20):
                                    status, attempts, last answer, next attempt, last error
  mcp                               serve your personas, refine and check to an agent
                                    (Claude Desktop, Cursor…) as a Model Context Protocol
                                    server on stdin/stdout; mcp --help for its environment

  --version                         print the version
  --help                            print this

Exit codes: 0 done; 1 something failed (or diff found differences); 2 wrong usage;
${EXIT_BELOW_BAR} the work was done but the text falls short: a refine left some of the persona's
rules broken (listed on stderr), a checked file did not pass, or an evaluation is under
its bar or regressed; ${EXIT_STREAM_REPLACED} refine --stream printed
text that is not the final result (refine again without --stream).

Environment:
  PERSONA_REFINE_API_KEY            your persona-refine API key (required)
  PERSONA_REFINE_URL                server root (default ${DEFAULT_URL})
  ${PROVIDER_KEY_VARIABLE}       the provider key for refine, unless --provider-key-env
                                    names another variable (keys are never arguments)
`;

type Command = (args: string[], context: CliContext) => Promise<number>;

const commands: Record<string, Command> = {
  'personas list': listPersonas,
  'personas export': exportPersonas,
  'personas import': importPersonas,
  'personas diff': diffPersonas,
  'personas history': personaHistory,
  'personas label': labelPersona,
  'terms import': importTerms,
  'terms export': exportTerms,
  refine: refineCommand,
  check: checkCommand,
  eval: evalCommand,
  quality: qualityCommand,
  'keys list': listKeys,
  'keys create': createKey,
  'keys rotate': rotateKey,
  'keys revoke': revokeKey,
  'keys current': currentKey,
  'webhooks list': listWebhooks,
  'webhooks create': createWebhook,
  'webhooks get': getWebhook,
  'webhooks update': updateWebhook,
  'webhooks delete': deleteWebhook,
  'webhooks test': testWebhook,
  'webhooks rotate-secret': rotateWebhookSecret,
  'webhooks deliveries': listDeliveries,
  mcp: (args, context) => mcpCommand(args, context, VERSION),
};

function commandFor(argv: string[]): { command: Command; args: string[] } {
  const [first = '', second = ''] = argv;
  const pair = commands[`${first} ${second}`];
  if (pair) return { command: pair, args: argv.slice(2) };
  const grouped = first === 'personas' || first === 'keys' || first === 'webhooks' || first === 'terms';
  const single = grouped ? undefined : commands[first];
  if (single) return { command: single, args: argv.slice(1) };
  throw new UsageError(grouped ? `unknown ${first} command "${second}"` : `unknown command "${first}"`);
}

export async function run(argv: string[], unsafeIo: CliIo): Promise<number> {
  // Messages, names and text from elsewhere reach a terminal without its control sequences (stdout piped is data, kept as is).
  const io = withSafeOutput(unsafeIo);
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    (argv.length === 0 ? io.stderr : io.stdout).write(argv[0] === 'mcp' ? MCP_USAGE : USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const { command, args } = commandFor(argv);
    return await command(args, contextFor(io));
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`persona-refine: ${error.message}\nRun persona-refine --help for usage.\n`);
      return 2;
    }
    io.stderr.write(`persona-refine: ${describeError(error)}\n`);
    return 1;
  }
}
