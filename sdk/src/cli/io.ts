/**
 * Everything the CLI touches outside itself, injected so tests run it in-process with captured
 * streams and a chosen environment instead of spawning a built binary.
 */
import { PersonaRefine, type PersonaRefineOptions } from '../index.js';

export interface TextSink {
  write(text: string): unknown;
}

export interface TerminalSink extends TextSink {
  /** Progress bars only when a person is watching; plain lines for logs and CI. */
  isTTY?: boolean;
  columns?: number;
}

export interface CliIo {
  env: Record<string, string | undefined>;
  /** Relative paths in arguments resolve against this. */
  cwd: string;
  stdin: AsyncIterable<string | Uint8Array>;
  stdout: TextSink;
  stderr: TerminalSink;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** A command's view of the world: its streams and a client configured from the environment. */
export interface CliContext {
  io: CliIo;
  client(hooks?: Pick<PersonaRefineOptions, 'onRetry'>): PersonaRefine;
}

/** A mistake in how the CLI was called: exit code 2 and a pointer to --help. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Reads the configuration up front, so a missing key fails before any work starts. */
export function contextFor(io: CliIo): CliContext {
  const apiKey = io.env.PERSONA_REFINE_API_KEY;
  if (!apiKey) throw new UsageError('set PERSONA_REFINE_API_KEY to your persona-refine API key');
  const baseUrl = io.env.PERSONA_REFINE_URL || DEFAULT_URL;
  if (!/^https?:\/\//.test(baseUrl)) throw new UsageError(`PERSONA_REFINE_URL must be an http(s) URL, got "${baseUrl}"`);
  return { io, client: (hooks = {}) => new PersonaRefine({ apiKey, baseUrl, ...hooks }) };
}

export async function readAll(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
