/**
 * Bearer authentication for every /v1 route not marked `config: { public: true }`,
 * and the scope each of them declares in `config: { scope }` (docs/keys-and-scopes.md, "Scopes").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '../accounts/authenticator.js';
import { hasScope, type Scope } from '../accounts/scopes.js';
import { lacksScope } from '../errors.js';
import type { Actor } from '../storage/change-log.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Reachable without an API key (the OpenAPI document, 405 answers). */
    public?: boolean;
    /**
     * The scope a key needs for this route; `any` for routes every valid key may
     * call (GET /v1/keys/current). Every authenticated /v1 route must say.
     */
    scope?: Scope | 'any';
  }
}

export function installAuth(app: FastifyInstance, authenticator: Authenticator): void {
  // Fastify 5 forbids object defaults on decorators (they would be shared); null until authenticated.
  app.decorateRequest('principal', null as unknown as Principal);
  // The scope is declared once, in the route's config; the OpenAPI document is written from it.
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { public?: boolean; scope?: Scope | 'any'; errorBody?: 'openai' };
    if (config.public) return;
    if (config.scope === undefined) throw new Error(`route ${route.method} ${route.url} declares no scope (config.scope)`);
    if (route.schema && !route.schema.hide) {
      route.schema.security = [{ bearerAuth: config.scope === 'any' ? [] : [config.scope] }];
      if (config.scope !== 'any') {
        route.schema.response = { ...(route.schema.response as object), 403: { description: `The key lacks the scope "${config.scope}"`, $ref: config.errorBody === 'openai' ? 'OpenAiError' : 'Error' } };
      }
    }
  });
  app.addHook('onRequest', async (request) => {
    const { config } = request.routeOptions;
    if (config.public) return;
    request.principal = await authenticator.authenticate(request.headers.authorization, request.id);
    if (config.scope !== undefined && config.scope !== 'any' && !hasScope(request.principal.scopes, config.scope)) {
      throw lacksScope(config.scope);
    }
  });
}

/** Who is making a change, for its version and audit event. */
export function actorOf(request: FastifyRequest): Actor {
  return { accountId: request.principal.accountId, keyId: request.principal.keyId, requestId: request.id };
}
