/**
 * Everything the CLI touches outside itself, injected so tests run it in-process with captured
 * streams and a chosen environment instead of spawning a built binary.
 */
import { PersonaRefine, type PersonaRefineOptions } from '../index.js';
import { hasControlCharacter, isHeaderSafe } from '../key-check.js';
import { stripTerminalControls } from './terminal-text.js';

export interface TextSink {
  write(text: string): unknown;
}

export interface TerminalSink extends TextSink {
  /**
   * A terminal, not a pipe or file: progress bars only when a person is watching, and stdout's
   * text is stripped of control sequences only then (piped, it is data, kept byte for byte).
   */
  isTTY?: boolean;
  columns?: number;
  /** Writes the CLI's own control sequences (the progress bar's line clearing), which `write` strips. */
  control?(sequence: string): unknown;
}

export interface CliIo {
  env: Record<string, string | undefined>;
  /** Relative paths in arguments resolve against this. */
  cwd: string;
  stdin: AsyncIterable<string | Uint8Array>;
  stdout: TerminalSink;
  stderr: TerminalSink;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** A command's view of the world: its streams and a client configured from the environment. */
export interface CliContext {
  io: CliIo;
  /** The server root the client talks to, for messages that say where. */
  baseUrl: string;
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
  checkKeyVariable('PERSONA_REFINE_API_KEY', apiKey, 'header');
  const baseUrl = io.env.PERSONA_REFINE_URL || DEFAULT_URL;
  if (!/^https?:\/\//.test(baseUrl)) throw new UsageError(`PERSONA_REFINE_URL must be an http(s) URL, got "${baseUrl}"`);
  return { io, baseUrl, client: (hooks = {}) => new PersonaRefine({ apiKey, baseUrl, ...hooks }) };
}

/**
 * A key with a pasted newline is refused by name, its value never shown. The API key travels in
 * a header, so it must be visible ASCII; a provider key travels in the JSON body.
 */
export function checkKeyVariable(variable: string, key: string, travels: 'header' | 'body' = 'body'): void {
  if (hasControlCharacter(key)) throw new UsageError(`${variable} contains a control character (a pasted newline?); it was not used`);
  if (travels === 'header' && !isHeaderSafe(key)) throw new UsageError(`${variable} contains a space or a non-ASCII character; it was not used`);
}

/**
 * Everything a terminal would act on stripped: always on stderr (messages, names, from anywhere),
 * on stdout only when it is a terminal. Redirected stdout (`refine < in > out`) is data and
 * keeps the refined text byte for byte, as `--out` writes it. `control` keeps the CLI's own sequences.
 */
export function withSafeOutput(io: CliIo): CliIo {
  const { stdout, stderr } = io;
  return {
    ...io,
    stdout: {
      write: stdout.isTTY === true ? (text: string) => stdout.write(stripTerminalControls(text)) : (text: string) => stdout.write(text),
      isTTY: stdout.isTTY,
      columns: stdout.columns,
    },
    stderr: {
      write: (text: string) => stderr.write(stripTerminalControls(text)),
      control: (sequence: string) => stderr.write(sequence),
      isTTY: stderr.isTTY,
      columns: stderr.columns,
    },
  };
}

export async function readAll(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
