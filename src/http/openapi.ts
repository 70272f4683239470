/** The OpenAPI 3.1 document, generated from the route schemas, and its docs page. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const API_VERSION = '1.1.0';

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'persona-refine',
        version: API_VERSION,
        description:
          'Store personas and have an LLM provider rewrite AI-written text in their voice, with your own provider key.',
      },
      tags: [
        { name: 'personas', description: 'Named sets of voice attributes' },
        { name: 'refine', description: 'Rewrite text in a persona\'s voice' },
        { name: 'versions', description: 'Immutable persona versions and the labels that point at them' },
        { name: 'audit', description: 'Who changed what, when' },
      ],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Your persona-refine API key' } },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: '/v1/openapi.json' } as never });
}

/** Registered inside /v1: public, so tools can fetch the contract without a key. */
export function openApiRoute(v1: FastifyInstance): void {
  let document: string | undefined;
  v1.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    document ??= JSON.stringify(v1.swagger());
    return reply.type('application/json; charset=utf-8').send(document);
  });
}
