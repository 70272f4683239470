/**
 * Fastify answers a known path with an unknown method as 404. HTTP says 405
 * with an Allow header, so every registered path also gets a hidden route for
 * the methods it does not serve: every method Node parses (TRACE, PROPFIND and
 * the other WebDAV verbs a scanner sends too), CONNECT aside, whose target is
 * not a path.
 */
import { METHODS as NODE_METHODS } from 'node:http';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { DomainError } from '../errors.js';
import { sendError } from './error-handler.js';

/** The methods a path can be served with, in the order Allow lists them. */
const SERVED: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const OTHERS = NODE_METHODS.filter((method) => method !== 'CONNECT' && !(SERVED as string[]).includes(method));

export interface RouteMethods {
  track(app: FastifyInstance): void;
  install(app: FastifyInstance): void;
}

export function methodNotAllowed(): RouteMethods {
  const byUrl = new Map<string, Set<string>>();
  return {
    track(app) {
      const known = new Set<string>(app.supportedMethods);
      for (const method of OTHERS) if (!known.has(method)) app.addHttpMethod(method);
      app.addHook('onRoute', (route) => {
        const methods = byUrl.get(route.url) ?? new Set<string>();
        for (const method of [route.method].flat()) methods.add(method);
        byUrl.set(route.url, methods);
      });
    },
    install(app) {
      for (const [url, used] of [...byUrl]) {
        if (used.has('GET')) used.add('HEAD');
        const missing = [...SERVED, ...OTHERS].filter((m) => !used.has(m));
        if (missing.length === 0) continue;
        const allow = SERVED.filter((m) => used.has(m)).join(', ');
        app.route({
          method: missing as HTTPMethods[],
          url,
          schema: { hide: true },
          config: { public: true },
          exposeHeadRoute: false,
          handler: async (request, reply) =>
            sendError(
              reply.header('allow', allow),
              new DomainError('method_not_allowed', `${request.method} is not allowed on this path; allowed: ${allow}`),
            ),
        });
      }
    },
  };
}
