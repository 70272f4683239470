/** Bearer authentication for every /v1 route not marked `config: { public: true }`. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '../accounts/authenticator.js';
import type { Actor } from '../storage/change-log.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Reachable without an API key (the OpenAPI document, 405 answers). */
    public?: boolean;
  }
}

export function installAuth(app: FastifyInstance, authenticator: Authenticator): void {
  // Fastify 5 forbids object defaults on decorators (they would be shared); null until authenticated.
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public) return;
    request.principal = await authenticator.authenticate(request.headers.authorization);
  });
}

/** Who is making a change, for its version and audit event. */
export function actorOf(request: FastifyRequest): Actor {
  return { accountId: request.principal.accountId, keyId: request.principal.keyId, requestId: request.id };
}
