/** How long and how hard each scenario runs; --quick shrinks everything for the smoke test. */
export interface Settings {
  quick: boolean;
  /** Length of each measured run, in seconds. */
  seconds: number;
  /** Discarded run before each measured one (JIT, connections, caches). */
  warmupSeconds: number;
  /** Rounds of each judged comparison; the median round's figure is reported. */
  runs: number;
  /** Connections for the CRUD throughput runs (service and baseline alike). */
  connections: number;
  /** Connections for the saturated refine and bare-proxy runs. */
  saturationConnections: number;
  /** Length of each step of the rate ladder (highest rate with p99 under 50 ms). */
  stepSeconds: number;
  /** Cold-start repetitions; the median is reported. */
  coldStartRuns: number;
  /** Many-in-flight scenario: concurrent refines and the fake's answer delay. */
  inFlight: number;
  inFlightLatencyMs: number;
}

export function settings(quick: boolean): Settings {
  return quick
    ? { quick, seconds: 1, warmupSeconds: 0, runs: 1, connections: 20, saturationConnections: 50, stepSeconds: 1, coldStartRuns: 1, inFlight: 100, inFlightLatencyMs: 500 }
    : { quick, seconds: 10, warmupSeconds: 2, runs: 3, connections: 20, saturationConnections: 50, stepSeconds: 3, coldStartRuns: 5, inFlight: 2_000, inFlightLatencyMs: 5_000 };
}
