/**
 * Axis ticks on "nice" numbers (1, 2, 2.5 or 5 times a power of ten), so a reader can
 * interpolate between them: 0, 20, 40… rather than 0, 17, 34…
 */

/** The nice number nearest `value` (rounded) or at least `value` (not rounded). */
function niceNumber(value: number, round: boolean): number {
  const exponent = Math.floor(Math.log10(value));
  const fraction = value / 10 ** exponent;
  const steps = round ? [[1.5, 1], [2.25, 2], [3.5, 2.5], [7.5, 5]] : [[1, 1], [2, 2], [2.5, 2.5], [5, 5]];
  const nice = steps.find(([limit]) => fraction <= limit!)?.[1] ?? 10;
  return nice * 10 ** exponent;
}

export interface Ticks {
  /** From the first tick to the last: the axis' domain, which covers [min, max]. */
  min: number;
  max: number;
  values: number[];
}

/**
 * About `count` ticks covering [min, max]. Counts get whole steps (`integers`): an axis of
 * answers reads 0, 1, 2, never 0.5.
 */
export function niceTicks(min: number, max: number, count = 5, { integers = false } = {}): Ticks {
  if (!(max > min)) max = min + 1;
  const range = niceNumber(max - min, false);
  let step = niceNumber(range / Math.max(1, count - 1), true);
  // 2.5 is no whole step: 2 instead (a tick more, still nice).
  if (integers) step = Math.max(1, Math.floor(step));
  const first = Math.floor(min / step) * step;
  const last = Math.ceil(max / step) * step;
  const values: number[] = [];
  // Rounded to the step's decimals, so 0.1 + 0.2 is labelled 0.3.
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  for (let value = first; value <= last + step / 2; value += step) values.push(Number(value.toFixed(decimals)));
  // The domain is the ticks as drawn: `first` itself may sit a rounding error above `min` (6389.150000000001).
  return { min: values[0] ?? first, max: values.at(-1) ?? last, values };
}

/** `1,234` or `92.5`: how values read on an axis and in a tooltip. */
export const formatNumber = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 2 });
