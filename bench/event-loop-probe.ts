/**
 * Preloaded into the service (`NODE_OPTIONS=--import …`) by the streaming and writes scenarios:
 * appends the main thread's event-loop delay for every second to EVENT_LOOP_PROBE_FILE, one
 * JSON line `{ t, p50, p99, max }` (ms), so a run can read the delay during its burst. On
 * SIGUSR2 it also appends `{ t, window: true, p50, p99, max, count }` for everything since the
 * previous SIGUSR2 (or the start): a percentile over a whole measured stretch, which per-second
 * lines cannot be combined into.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.EVENT_LOOP_PROBE_FILE;
if (isMainThread && file) {
  // 1 ms: a delay of a few milliseconds (one fsync) must show, and the target is 5 ms.
  const RESOLUTION_MS = 1;
  const second = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const window = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  second.enable();
  window.enable();
  // The histogram holds the time between two of its timer's ticks, the resolution included
  // (an idle loop reads 10 ms at a resolution of 10): the delay is what exceeds it.
  const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4) / 100 - RESOLUTION_MS);
  const summary = (h: typeof second) => ({ p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) });
  setInterval(() => {
    appendFileSync(file, `${JSON.stringify({ t: Date.now(), ...summary(second) })}\n`);
    second.reset();
  }, 1_000).unref();
  process.on('SIGUSR2', () => {
    appendFileSync(file, `${JSON.stringify({ t: Date.now(), window: true, ...summary(window), count: window.count })}\n`);
    window.reset();
  });
}
