/**
 * Request bodies over BODY_LIMIT_BYTES, which only a route with a larger `bodyLimit` accepts
 * (`PUT /v1/personas/{id}/samples`, up to 16 MiB), hold several times their size while they are
 * parsed, validated, stored and answered: eight 15 MiB sample sets at once held 842 MB. Such
 * bodies share a budget per instance and per account, reserved before the body is read and given
 * back when the answer is sent or the connection closes (docs/evaluations.md, "Limits").
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { rateLimited, unavailable } from '../errors.js';
import { InFlightBytes } from '../limits/in-flight-bytes.js';

const MiB = 1024 * 1024;
/** Two of the largest bodies at once on an instance; one per account. */
export const LARGE_BODIES_PER_INSTANCE_BYTES = 32 * MiB;
export const LARGE_BODIES_PER_ACCOUNT_BYTES = 16 * MiB;

export function installLargeBodyBudget(app: FastifyInstance, bodyLimitBytes: number): void {
  const budget = new InFlightBytes(LARGE_BODIES_PER_INSTANCE_BYTES, LARGE_BODIES_PER_ACCOUNT_BYTES);

  const admit = (routeLimit: number) => (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const length = request.headers['content-length'];
    // Without a Content-Length (chunked), the body may be as large as the route allows.
    const bytes = length === undefined ? routeLimit : Number(length);
    // A body over the route's limit is refused (413) before it is read.
    if (!(bytes > bodyLimitBytes && bytes <= routeLimit)) return done();
    const release = budget.tryAcquire(request.principal.accountId, bytes);
    if (release === 'instance') return done(unavailable('large request bodies in flight fill this instance\'s budget for them; retry shortly', 1));
    if (release === 'account') {
      return done(rateLimited(`this account already has large request bodies in flight here (at most ${LARGE_BODIES_PER_ACCOUNT_BYTES / MiB} MiB at once); retry when they are answered`, 1));
    }
    // Sent, failed or cut off: 'close' comes once the answer is done with, however it ends.
    reply.raw.once('close', release);
    done();
  };

  app.addHook('onRoute', (route) => {
    const routeLimit = route.bodyLimit ?? bodyLimitBytes;
    if (routeLimit <= bodyLimitBytes) return;
    if (routeLimit > LARGE_BODIES_PER_ACCOUNT_BYTES) throw new Error(`${route.method} ${route.url} accepts bodies larger than an account's budget for them`);
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [...own, admit(routeLimit) as onRequestHookHandler];
  });
}
