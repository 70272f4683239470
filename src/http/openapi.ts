/** The OpenAPI 3.1 document, generated from the route schemas, and its docs page. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS, STUDIO_CSP } from '../routes/studio.js';

export const API_VERSION = '1.7.0';

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'persona-refine',
        version: API_VERSION,
        description:
          'Store personas and have an LLM provider rewrite AI-written text in their voice, with your own provider key. ' +
          'The version above is the API contract\'s; the `X-Service-Version` header on every answer names the running build, ' +
          'which changes independently.',
      },
      tags: [
        { name: 'personas', description: 'Named sets of voice attributes' },
        { name: 'refine', description: 'Rewrite text in a persona\'s voice' },
        { name: 'chat', description: 'OpenAI\'s Chat Completions, answered in a persona\'s voice (a drop-in base URL for OpenAI clients)' },
        { name: 'versions', description: 'Immutable persona versions and the labels that point at them' },
        { name: 'evaluations', description: 'Samples per persona, evaluation runs of a version, and the label gates they open' },
        { name: 'audit', description: 'Who changed what, when' },
        { name: 'keys', description: 'API keys, their scopes and budgets' },
        { name: 'usage', description: 'What the account spent' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'Your persona-refine API key. Each operation lists the one scope its key needs (`security: [{bearerAuth: [scope]}]`); ' +
              'a key with `*` has every scope. Without it: 403 `this key lacks the scope "<scope>"`.',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // Encapsulated so the hook covers /docs and its static files only.
  await app.register(async (docs) => {
    docs.addHook('onRequest', async (_request, reply) => {
      reply.headers({ ...SECURITY_HEADERS, 'content-security-policy': DOCS_CSP });
    });
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: '/v1/openapi.json' } as never });
  });
}

/** The studio's policy, except that Swagger UI sets inline style attributes (scripts stay 'self' only). */
export const DOCS_CSP = STUDIO_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

/** Registered inside /v1: public, so tools can fetch the contract without a key. */
export function openApiRoute(v1: FastifyInstance): void {
  let document: string | undefined;
  v1.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    document ??= JSON.stringify(v1.swagger());
    return reply.type('application/json; charset=utf-8').send(document);
  });
}
