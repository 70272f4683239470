/** The charts' axis ticks: nice steps that cover the values, whole steps for counts. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { niceTicks } from '../../studio/src/charts/nice-ticks.js';

const NICE_FRACTIONS = [1, 2, 2.5, 5, 10];
const isNice = (step: number) => NICE_FRACTIONS.some((fraction) => Math.abs(step / 10 ** Math.floor(Math.log10(step)) - fraction) < 1e-9);

describe('niceTicks', () => {
  it('reads 0, 20, 40… rather than 0, 17, 34…', () => {
    expect(niceTicks(0, 87).values).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(0, 1234).values).toEqual([0, 500, 1000, 1500]);
    expect(niceTicks(90, 100).values).toEqual([90, 92.5, 95, 97.5, 100]);
    expect(niceTicks(0, 4, 5, { integers: true }).values).toEqual([0, 1, 2, 3, 4]);
  });

  it('covers a max that is a sum rounded at its magnitude, and a min its step does not divide exactly (found by the property below)', () => {
    expect(niceTicks(498018.78, 498018.78 + 0.01).max).toBeGreaterThanOrEqual(498018.79);
    expect(niceTicks(6389.15, 6389.15 + 0.01).min).toBeLessThanOrEqual(6389.15);
  });

  it('gives counts whole steps and an axis of nothing a height of one', () => {
    expect(niceTicks(0, 2, 5, { integers: true }).values).toEqual([0, 1, 2]);
    expect(niceTicks(0, 0, 5, { integers: true }).values).toEqual([0, 1]);
    expect(niceTicks(0, 9, 5, { integers: true }).values).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it('covers [min, max] with a few evenly spaced nice ticks', () => {
    // Values as the dashboard has them: counts and scores of at most two decimals.
    const hundredths = (min: number, max: number) => fc.integer({ min: min * 100, max: max * 100 }).map((n) => n / 100);
    fc.assert(
      fc.property(hundredths(-1e6, 1e6), hundredths(0.01, 1e6), fc.boolean(), (min, span, integers) => {
        const { values, min: first, max: last } = niceTicks(min, min + span, 5, { integers });
        expect(first).toBeLessThanOrEqual(min);
        // min + span is itself rounded at min's magnitude (498018.78 + 0.01 = 498018.79000000004),
        // and the ticks are rounded to the step's decimals: equal up to that rounding.
        expect(last).toBeGreaterThanOrEqual(min + span - Math.max(Math.abs(min), span) * 1e-12);
        expect(values.length).toBeGreaterThanOrEqual(2);
        expect(values.length).toBeLessThanOrEqual(12);
        const step = Number((values[1]! - values[0]!).toPrecision(6));
        expect(isNice(step)).toBe(true);
        if (integers) expect(Number.isInteger(step)).toBe(true);
      }),
    );
  });
});
