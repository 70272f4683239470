/** `persona-refine mcp` started as an agent host starts it: the built binary, spoken to by MCP's own stdio client. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const BIN = fileURLToPath(new URL('../../bin/persona-refine.js', import.meta.url));

export interface McpSession {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** With `env` alone (plus the stdio client's own PATH, HOME…): nothing leaks in from the test's environment. */
export async function startMcp(env: Record<string, string>, command = process.execPath, args = [BIN, 'mcp']): Promise<McpSession> {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'persona-refine-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The binary compiles the CLI when a source is newer than its build: done once here, so no test's first start pays for it. */
export async function buildCli(): Promise<void> {
  await promisify(execFile)(process.execPath, [BIN, '--version']);
}

/** A tool result's text part, which every result has first. */
export function textOf(result: unknown): string {
  const [first] = (result as { content: { type: string; text?: string }[] }).content;
  if (first?.type !== 'text' || first.text === undefined) throw new Error(`no text part in ${JSON.stringify(result)}`);
  return first.text;
}
