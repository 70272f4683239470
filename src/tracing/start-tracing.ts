/** OpenTelemetry is imported only when an OTLP endpoint is configured. */
import type { TracingConfig } from '../config.js';
import { type HttpTracer, noHttpTracing } from './http-tracer.js';

export async function startTracing(config: TracingConfig | undefined, serviceVersion: string): Promise<HttpTracer> {
  if (config === undefined) return noHttpTracing;
  const { openTelemetryTracer } = await import('./open-telemetry.js');
  return openTelemetryTracer(config, serviceVersion);
}
