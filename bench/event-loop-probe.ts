/**
 * Preloaded into the service (`NODE_OPTIONS=--import …`) by the streaming scenario:
 * appends the main thread's event-loop delay for every second to EVENT_LOOP_PROBE_FILE,
 * one JSON line `{ t, p50, p99, max }` (ms), so a run can read the delay during its burst.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.EVENT_LOOP_PROBE_FILE;
if (isMainThread && file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const ms = (ns: number) => Math.round(ns / 1e5) / 10;
  setInterval(() => {
    const line = { t: Date.now(), p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
    histogram.reset();
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, 1_000).unref();
}
