/** The persona resource: HTTP only. Rules live in PersonaService. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { PersonaRecord, PersonaService } from '../personas/persona-service.js';
import { commonErrors, ETagHeader, IdempotencyHeaders, idempotencyErrors, IfMatchHeaders, NextPageHeader, notFoundError, preconditionError } from '../schemas/common.js';
import {
  CreatePersonaBody,
  ListPersonasQuery,
  PersonaList,
  PersonaParams,
  UpdatePersonaBody,
} from '../schemas/persona.js';
import { Type } from '@sinclair/typebox';
import { type IdempotencyHooks, scopeRight } from '../http/idempotency.js';
import { actorOf } from '../http/auth.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
const personaRef = Type.Ref('Persona');
const security = [{ bearerAuth: [] }];

/**
 * A persona's body, every route's: written by hand with the stored attributes text spliced in
 * as stored. The text was written by JSON.stringify, so it is what parsing it and serializing
 * the object again would give, without the parse and the second serialization
 * (docs/http-contract.md, "Response bodies").
 */
function personaJson(record: PersonaRecord): string {
  return `{"id":${JSON.stringify(record.id)},"name":${JSON.stringify(record.name)},"attributes":${record.attributesJson}}`;
}

const personaArray = (records: PersonaRecord[]) => `[${records.map(personaJson).join(',')}]`;

export function sendPersona(reply: FastifyReply, record: PersonaRecord): FastifyReply {
  return reply.header('etag', record.etag).header('last-modified', record.updatedAt.toUTCString()).type(JSON_TYPE).send(personaJson(record));
}

/** What one written chunk of the unpaged list holds at most, unless a single persona is larger. */
const LIST_CHUNK_CHARS = 64 * 1024;

/**
 * The list as chunks of about LIST_CHUNK_CHARS, never a whole batch joined: V8 puts strings over
 * ~128 KiB straight into large-object space, which only a full collection frees, so twenty slow
 * readers of a list of large personas left hundreds of MiB of dead batch strings in the heap.
 */
async function* jsonArray(first: PersonaRecord[], rest: AsyncGenerator<PersonaRecord[]>): AsyncGenerator<string> {
  let chunk = '[';
  let separator = '';
  async function* records() {
    yield* first;
    for await (const batch of rest) yield* batch;
  }
  for await (const record of records()) {
    const json = personaJson(record);
    if (chunk.length > 0 && chunk.length + json.length > LIST_CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
    chunk += separator + json;
    separator = ',';
  }
  yield `${chunk}]`;
}

export interface PersonaRouteOptions {
  personas: PersonaService;
  idempotency: IdempotencyHooks;
}

export const personaRoutes: FastifyPluginAsyncTypebox<PersonaRouteOptions> = async (app, { personas, idempotency }) => {
  app.post('/personas', {
    config: { scope: 'personas:write' },
    ...idempotency,
    schema: {
      tags: ['personas'],
      summary: 'Create a persona',
      security,
      headers: IdempotencyHeaders,
      body: CreatePersonaBody,
      response: { 201: { description: 'Created', headers: ETagHeader, ...personaRef }, ...commonErrors, ...idempotencyErrors },
    },
    handler: async (request, reply) => {
      const record = await personas.create(actorOf(request), request.body);
      return sendPersona(reply.code(201).header('location', `/v1/personas/${record.id}`), record);
    },
  });

  app.get('/personas', {
    config: { scope: 'personas:read' },
    schema: {
      tags: ['personas'],
      summary: 'List the account\'s personas, oldest first',
      description: 'All personas unless `limit` is given; then a `Link: <…>; rel="next"` header points to the next page.',
      security,
      querystring: ListPersonasQuery,
      response: { 200: { description: 'The personas', headers: NextPageHeader, ...PersonaList }, ...commonErrors },
    },
    handler: async (request, reply) => {
      const { limit, cursor } = request.query;
      if (limit === undefined && cursor === undefined) {
        const { first, rest } = await personas.all(request.principal.accountId);
        if (rest === undefined) return reply.type(JSON_TYPE).send(personaArray(first));
        // Written batch by batch as the client reads (a stream respects backpressure), never held whole.
        return reply.type(JSON_TYPE).send(Readable.from(jsonArray(first, rest), { objectMode: false }));
      }
      const page = await personas.list(request.principal.accountId, { limit, cursor });
      if (page.nextCursor !== undefined) {
        const next = `/v1/personas?limit=${page.limit}&cursor=${encodeURIComponent(page.nextCursor)}`;
        reply.header('link', `<${next}>; rel="next"`);
      }
      return reply.type(JSON_TYPE).send(personaArray(page.personas));
    },
  });

  app.get('/personas/:id', {
    config: { scope: 'personas:read' },
    schema: {
      tags: ['personas'],
      summary: 'Get a persona',
      security,
      params: PersonaParams,
      response: { 200: { description: 'The persona', headers: ETagHeader, ...personaRef }, ...commonErrors, ...notFoundError },
    },
    handler: async (request, reply) =>
      sendPersona(reply, await personas.get(request.principal.accountId, request.params.id)),
  });

  // A retry after a lost answer (the SDK's) gets the first answer back instead of a second version or a 412.
  app.patch('/personas/:id', {
    config: { scope: 'personas:write' },
    ...idempotency,
    schema: {
      tags: ['personas'],
      summary: 'Update a persona',
      description:
        'A field present replaces the stored one; a field absent is kept. `attributes` is replaced whole. ' +
        'The result is recorded as a new immutable version (the number in the new ETag).',
      security,
      params: PersonaParams,
      headers: Type.Composite([IfMatchHeaders, IdempotencyHeaders]),
      body: UpdatePersonaBody,
      response: { 200: { description: 'The updated persona', headers: ETagHeader, ...personaRef }, ...commonErrors, ...notFoundError, ...preconditionError, ...idempotencyErrors },
    },
    handler: async (request, reply) => {
      const record = await personas.update(actorOf(request), request.params.id, request.body, request.headers['if-match']);
      return sendPersona(reply, record);
    },
  });

  app.delete('/personas/:id', {
    config: { scope: 'personas:write' },
    ...idempotency,
    schema: {
      tags: ['personas'],
      summary: 'Delete a persona',
      description:
        'Its versions and labels go with it; its audit events stay. ' +
        'A persona with a protected label that points at a version needs the scope `labels:protected` as well.',
      security,
      params: PersonaParams,
      headers: Type.Composite([IfMatchHeaders, IdempotencyHeaders]),
      response: { 204: { description: 'Deleted', type: 'null' }, ...commonErrors, ...notFoundError, ...preconditionError, ...idempotencyErrors },
    },
    handler: async (request, reply) => {
      await personas.delete(actorOf(request), request.params.id, request.headers['if-match'], scopeRight(request, 'labels:protected'));
      return reply.code(204).send(null);
    },
  });
};
