/**
 * `mcp`: persona-refine as a Model Context Protocol server on stdin/stdout, for agent hosts
 * (Claude Desktop, Cursor…). The MCP SDK is imported here, on use, so no other command loads it.
 */
import { DEFAULT_URL, type CliContext, UsageError } from './io.js';
import { PROVIDER_KEY_VARIABLES } from './mcp/provider-keys.js';
import { PROVIDER_KEY_VARIABLE } from './refine-command.js';

const DEFAULT_PROVIDER = 'rules';

const row = (variable: string, text: string) => `  ${variable.padEnd(30)}${text}`;
const keyRows = Object.entries(PROVIDER_KEY_VARIABLES).map(([provider, variable]) => row(variable, `the key for ${provider}`));

export const MCP_USAGE = `persona-refine mcp: a Model Context Protocol server on stdin/stdout for agent hosts
(Claude Desktop, Cursor, …), which start it and talk to it. It serves your personas as
resources (persona://ID) and four tools: list_personas, get_persona, refine (rewrite text
in a persona's voice) and check (score text against a persona).

Usage: persona-refine mcp         no arguments: it is configured by its environment

Environment:
${row('PERSONA_REFINE_API_KEY', 'your persona-refine API key (required)')}
${row('PERSONA_REFINE_URL', `server root (default ${DEFAULT_URL})`)}
${row('PERSONA_REFINE_PROVIDER', "refine's provider when the agent names none (default")}
${row('', `${DEFAULT_PROVIDER}: the persona's rules alone, no model, no key)`)}
${keyRows.join('\n')}
${row(PROVIDER_KEY_VARIABLE, "the key for a provider the service's operator declared")}

A provider key is sent only with a refine by its provider, and only when the service says
that provider needs one. No key appears in a tool result or on stderr; stdout carries
protocol messages only. A failing call answers isError with the service's message.
`;

// An optional peer: the SDK stays free of dependencies for everyone who never runs `mcp`.
const MCP_SDK_MISSING = 'mcp needs the package @modelcontextprotocol/sdk beside @persona-refine/sdk: npm install @modelcontextprotocol/sdk';

const mcpSdkMissing = (error: unknown) =>
  (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes('@modelcontextprotocol/sdk');

export async function mcpCommand(args: string[], context: CliContext, version: string): Promise<number> {
  // An argument is never echoed: a key pasted where it does not belong must not reach a host's log.
  if (args.length > 0) throw new UsageError('mcp takes no arguments: its environment configures it (persona-refine mcp --help)');
  const { serveMcp } = await import('./mcp/serve.js').catch((error: unknown) => {
    throw mcpSdkMissing(error) ? new Error(MCP_SDK_MISSING) : error;
  });
  return serveMcp(context, { version, defaultProvider: context.io.env.PERSONA_REFINE_PROVIDER || DEFAULT_PROVIDER });
}
