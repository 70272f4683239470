/** OpenTelemetry is imported only when an OTLP endpoint is configured. */
import type { TracingConfig } from '../config.js';
import { noTracing, type Tracer } from './tracer.js';

export async function startTracing(config: TracingConfig | undefined, serviceVersion: string): Promise<Tracer> {
  if (config === undefined) return noTracing;
  const { openTelemetryTracer } = await import('./open-telemetry.js');
  return openTelemetryTracer(config, serviceVersion);
}
