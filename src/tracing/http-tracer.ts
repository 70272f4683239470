/**
 * The tracer the server holds: the domain's `Tracer` plus server spans for
 * every request. Kept apart from tracer.ts so that the domain, which takes a
 * `Tracer`, never imports Fastify (docs/architecture.md, "The domain owns its types").
 */
import type { FastifyInstance } from 'fastify';
import { noTracing, type Tracer } from './tracer.js';

export interface HttpTracer extends Tracer {
  /** Server spans for every request, continuing an incoming `traceparent`. */
  instrument(app: FastifyInstance): void;
}

export const noHttpTracing: HttpTracer = { ...noTracing, instrument: () => {} };
