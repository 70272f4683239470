import { describe, expect, it } from 'vitest';
import { forEachBounded } from '../src/cli/bounded-pool.js';

describe('forEachBounded', () => {
  it('processes every item, never more than the limit at once', async () => {
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    await forEachBounded([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      peak = Math.max(peak, ++inFlight);
      // sleeps because items must finish out of order: the wait is the work
      await new Promise((resolve) => setTimeout(resolve, 5 * (item % 3)));
      done.push(item);
      inFlight--;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBe(3);
  });

  it('does nothing for no items', async () => {
    await expect(forEachBounded([], 4, async () => expect.fail('not called'))).resolves.toBeUndefined();
  });
});
