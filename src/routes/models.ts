/**
 * GET /v1/models: OpenAI's model list, so its clients (and tools that list models before
 * calling one) find what `model` may name. Scope `refine`, like GET /v1/providers: the key
 * that calls a completion may see what it can call. HTTP only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ChatService } from '../chat/chat-service.js';
import { ModelList, openAiErrors } from '../schemas/chat.js';

export const modelRoutes: FastifyPluginAsyncTypebox<{ chat: ChatService }> = async (app, { chat }) => {
  // Providers come from the operator's configuration, fixed for the life of the process.
  const created = Math.floor(Date.now() / 1000);
  const list: ModelList = {
    object: 'list',
    data: chat.models().map(({ provider, model }) => ({ id: `${provider}/${model}`, object: 'model', created, owned_by: provider })),
  };
  app.get('/models', {
    config: { scope: 'refine', errorBody: 'openai' },
    schema: {
      tags: ['chat'],
      summary: 'The models POST /v1/chat/completions may name, in OpenAI\'s list shape',
      description:
        'Every provider\'s default model as `<provider>/<model>` (built-in providers first, then the OpenAI-compatible endpoints the operator declared); ' +
        '`model` also takes any other model id of a provider (`<provider>/<model>`) or the provider alone. `created` is when this instance started.',
      security: [{ bearerAuth: [] }],
      response: { 200: { description: 'The models', ...ModelList }, ...openAiErrors([401, 403, 429, 500, 503]) },
    },
    handler: async () => list,
  });
};
