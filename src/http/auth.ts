/** Bearer authentication for every /v1 route not marked `config: { public: true }`. */
import type { FastifyInstance } from 'fastify';
import type { Authenticator, Principal } from '../accounts/authenticator.js';

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
