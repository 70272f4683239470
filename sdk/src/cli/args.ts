/** Command-line parsing with node:util's parser; its complaints become usage errors. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './io.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

export function parseCommand<const O extends Options>(args: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function positiveInteger(raw: string, flag: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError(`${flag} must be a whole number of at least 1, got "${raw}"`);
  return Number(raw);
}

/** A whole number from `min` to `max`, such as a score bar (0–100). */
export function wholeNumberIn(raw: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

/** A share from 0 to 1, such as a pass rate (`0.9`). */
export function shareOf(raw: string, flag: string): number {
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(raw)) throw new UsageError(`${flag} must be a number from 0 to 1 (e.g. 0.9), got "${raw}"`);
  return Number(raw);
}
