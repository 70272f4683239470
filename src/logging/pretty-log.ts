/**
 * Log lines for a person at a terminal: `12:04:05.123 INFO  message key=value`,
 * coloured by level. Loaded only when LOG_FORMAT is pretty (log-destination.ts),
 * so production's JSON path neither loads nor runs any of this.
 */
import type { DestinationStream } from 'pino';

const LEVELS: Record<number, { label: string; colour: number }> = {
  10: { label: 'TRACE', colour: 90 },
  20: { label: 'DEBUG', colour: 36 },
  30: { label: 'INFO ', colour: 32 },
  40: { label: 'WARN ', colour: 33 },
  50: { label: 'ERROR', colour: 31 },
  60: { label: 'FATAL', colour: 35 },
};

/** Fields every line has or nobody reads at a terminal. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

type Paint = (code: number, text: string) => string;

function value(raw: unknown): string {
  if (typeof raw === 'string') return /^[^\s"=]+$/.test(raw) ? raw : JSON.stringify(raw);
  return JSON.stringify(raw) ?? String(raw);
}

function clock(time: unknown): string {
  const date = typeof time === 'number' ? new Date(time) : new Date();
  return date.toISOString().slice(11, 23);
}

function errorLines(err: unknown, paint: Paint): string {
  if (typeof err !== 'object' || err === null) return '';
  const { type, message, stack } = err as { type?: string; message?: string; stack?: string };
  const text = typeof stack === 'string' ? stack : `${type ?? 'Error'}: ${message ?? ''}`;
  return `\n${paint(31, text.replace(/^/gm, '    '))}`;
}

/** One pino JSON line → one readable line (plus an indented stack for errors). */
export function prettyLine(json: string, colour: boolean): string {
  const paint: Paint = colour ? (code, text) => `\u001b[${code}m${text}\u001b[39m` : (_code, text) => text;
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = LEVELS[line.level as number] ?? { label: String(line.level).padEnd(5), colour: 39 };
  const fields = Object.entries(line)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, raw]) => `${key}=${value(raw)}`)
    .join(' ');
  const message = typeof line.msg === 'string' ? line.msg : '';
  return `${paint(90, clock(line.time))} ${paint(level.colour, level.label)} ${message}${fields ? ` ${paint(90, fields)}` : ''}${errorLines(line.err, paint)}\n`;
}

/** A pino destination writing pretty lines to stdout. */
export function prettyDestination(colour: boolean): DestinationStream {
  return { write: (json: string) => void process.stdout.write(prettyLine(json, colour)) };
}
