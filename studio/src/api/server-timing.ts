/** Reads `Server-Timing: provider;dur=118.2, total;dur=123.9` (what POST /v1/refine sends). */

export interface RefineTiming {
  /** Time the service spent waiting on the provider, retries included. */
  providerMs?: number;
  /** Time the service spent on the whole request. */
  totalMs?: number;
}

export function parseServerTiming(header: string | null): RefineTiming | undefined {
  if (!header) return undefined;
  const durations = new Map<string, number>();
  for (const metric of header.split(',')) {
    const [name, ...params] = metric.split(';').map((part) => part.trim());
    const dur = params.find((param) => param.toLowerCase().startsWith('dur='));
    const value = Number(dur?.slice(4));
    if (name && dur && Number.isFinite(value)) durations.set(name.toLowerCase(), value);
  }
  const timing: RefineTiming = {};
  if (durations.has('provider')) timing.providerMs = durations.get('provider');
  if (durations.has('total')) timing.totalMs = durations.get('total');
  return Object.keys(timing).length > 0 ? timing : undefined;
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
}
