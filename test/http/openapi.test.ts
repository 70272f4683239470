import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('the OpenAPI document', () => {
  let server: TestServer;
  let document: Record<string, any>;
  beforeAll(async () => {
    server = await startTestServer();
    document = await (await server.request('/v1/openapi.json', { key: null })).json();
  });
  afterAll(() => server.close());

  it('is a valid OpenAPI 3.1 document with version 1.7.0', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.7.0');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('describes every public /v1 operation with bearer security naming its scope, and the error schema', () => {
    const scopes: Record<string, string[]> = {
      'post /v1/personas': ['personas:write'],
      'post /v1/personas/draft': ['personas:write'],
      'get /v1/personas': ['personas:read'],
      'get /v1/personas/{id}': ['personas:read'],
      'patch /v1/personas/{id}': ['personas:write'],
      'delete /v1/personas/{id}': ['personas:write'],
      'post /v1/refine': ['refine'],
      'post /v1/chat/completions': ['refine'],
      'get /v1/models': ['refine'],
      'post /v1/check': ['refine'],
      'get /v1/personas/{id}/variants/{name}': ['personas:read'],
      'get /v1/personas/{id}/versions': ['personas:read'],
      'get /v1/personas/{id}/versions/{version}': ['personas:read'],
      'post /v1/personas/{id}/versions/{version}/restore': ['personas:write'],
      'get /v1/personas/{id}/labels': ['personas:read'],
      'get /v1/personas/{id}/label-policies': ['personas:read'],
      'put /v1/personas/{id}/labels/{label}': ['labels:write'],
      'delete /v1/personas/{id}/labels/{label}': ['labels:write'],
      'get /v1/personas/{id}/labels/{label}/policy': ['personas:read'],
      'put /v1/personas/{id}/labels/{label}/policy': ['labels:protected'],
      'delete /v1/personas/{id}/labels/{label}/policy': ['labels:protected'],
      'get /v1/audit': ['audit:read'],
      'get /v1/usage': ['usage:read'],
      'get /v1/personas/{id}/quality': ['usage:read'],
      'get /v1/personas/{id}/feedback': ['usage:read'],
      'get /v1/personas/{id}/retention': ['personas:read'],
      'put /v1/personas/{id}/retention': ['personas:write'],
      'get /v1/personas/{id}/reviews': ['personas:read'],
      'post /v1/personas/{id}/reviews/{requestId}/resolve': ['personas:write'],
      'post /v1/feedback': ['refine'],
      'get /v1/providers': ['refine'],
      'post /v1/keys': ['keys:admin'],
      'get /v1/keys': ['keys:admin'],
      'get /v1/keys/current': [],
      'get /v1/keys/{id}': ['keys:admin'],
      'delete /v1/keys/{id}': ['keys:admin'],
      'post /v1/keys/{id}/rotate': ['keys:admin'],
      'get /v1/personas/{id}/samples': ['personas:read'],
      'put /v1/personas/{id}/samples': ['personas:write'],
      'post /v1/personas/{id}/evals': ['evals'],
      'get /v1/personas/{id}/evals': ['evals'],
      'get /v1/personas/{id}/evals/compare': ['evals'],
      'get /v1/personas/{id}/evals/{evalId}': ['evals'],
      'post /v1/personas/{id}/evals/{evalId}/cancel': ['evals'],
      'get /v1/personas/{id}/evals/{evalId}/events': ['evals'],
      'post /v1/webhooks': ['webhooks:admin'],
      'get /v1/webhooks': ['webhooks:admin'],
      'get /v1/webhooks/{id}': ['webhooks:admin'],
      'patch /v1/webhooks/{id}': ['webhooks:admin'],
      'delete /v1/webhooks/{id}': ['webhooks:admin'],
      'post /v1/webhooks/{id}/test': ['webhooks:admin'],
      'post /v1/webhooks/{id}/rotate-secret': ['webhooks:admin'],
      'get /v1/webhooks/{id}/deliveries': ['webhooks:admin'],
    };
    const expected = [
      'post /v1/personas',
      'post /v1/personas/draft',
      'get /v1/personas',
      'get /v1/personas/{id}',
      'patch /v1/personas/{id}',
      'delete /v1/personas/{id}',
      'post /v1/refine',
      'post /v1/chat/completions',
      'get /v1/models',
      'post /v1/check',
      'get /v1/personas/{id}/variants/{name}',
      'get /v1/personas/{id}/versions',
      'get /v1/personas/{id}/versions/{version}',
      'post /v1/personas/{id}/versions/{version}/restore',
      'get /v1/personas/{id}/labels',
      'get /v1/personas/{id}/label-policies',
      'put /v1/personas/{id}/labels/{label}',
      'delete /v1/personas/{id}/labels/{label}',
      'get /v1/audit',
      'get /v1/usage',
      'get /v1/personas/{id}/quality',
      'get /v1/personas/{id}/feedback',
      'get /v1/personas/{id}/retention',
      'put /v1/personas/{id}/retention',
      'get /v1/personas/{id}/reviews',
      'post /v1/personas/{id}/reviews/{requestId}/resolve',
      'post /v1/feedback',
      'get /v1/providers',
      'get /v1/personas/{id}/labels/{label}/policy',
      'put /v1/personas/{id}/labels/{label}/policy',
      'delete /v1/personas/{id}/labels/{label}/policy',
      'post /v1/keys',
      'get /v1/keys',
      'get /v1/keys/current',
      'get /v1/keys/{id}',
      'delete /v1/keys/{id}',
      'post /v1/keys/{id}/rotate',
      'get /v1/personas/{id}/samples',
      'put /v1/personas/{id}/samples',
      'post /v1/personas/{id}/evals',
      'get /v1/personas/{id}/evals',
      'get /v1/personas/{id}/evals/compare',
      'get /v1/personas/{id}/evals/{evalId}',
      'post /v1/personas/{id}/evals/{evalId}/cancel',
      'get /v1/personas/{id}/evals/{evalId}/events',
      'post /v1/webhooks',
      'get /v1/webhooks',
      'get /v1/webhooks/{id}',
      'patch /v1/webhooks/{id}',
      'delete /v1/webhooks/{id}',
      'post /v1/webhooks/{id}/test',
      'post /v1/webhooks/{id}/rotate-secret',
      'get /v1/webhooks/{id}/deliveries',
    ];
    const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    );
    expect(operations.sort()).toEqual(expected.sort());
    for (const [path, ops] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.security, `${method} ${path}`).toEqual([{ bearerAuth: scopes[`${method} ${path}`] }]);
        if (scopes[`${method} ${path}`]!.length > 0) expect(op.responses['403'], `${method} ${path}`).toBeDefined();
        expect(op.responses['401'], `${method} ${path}`).toBeDefined();
        expect(op.summary, `${method} ${path}`).toBeTruthy();
        if (/versions|labels/.test(path)) expect(op.responses['404'], `${method} ${path}`).toBeDefined();
        if (method !== 'get' && /versions|labels/.test(path) && !path.endsWith('/policy')) expect(op.responses['412'], `${method} ${path}`).toBeDefined();
      }
    }
    expect(document.components.schemas.Error.required).toEqual(['error', 'message']);
    // The routes OpenAI's clients call answer OpenAI's error body, 403 included.
    for (const [method, path] of [['post', '/v1/chat/completions'], ['get', '/v1/models']] as const) {
      for (const status of ['401', '403', '429']) {
        expect(document.paths[path][method].responses[status].content['application/json'].schema.$ref, `${method} ${path} ${status}`).toMatch(/OpenAiError$/);
      }
    }
    expect(document.components.schemas.Persona.required).toEqual(['id', 'name', 'attributes']);
    expect(document.components.schemas.PersonaVersion.required).toEqual(['version', 'name', 'attributes', 'createdAt', 'createdBy']);
    expect(Object.keys(document.components.schemas.AuditEvent.properties)).toEqual([
      'id', 'at', 'action', 'personaId', 'version', 'fromVersion', 'label', 'actor', 'requestId', 'keyId', 'detail',
    ]);
    // The labels answer is a plain map of labels; their policies have their own route.
    const labels = document.paths['/v1/personas/{id}/labels'].get.responses['200'].content['application/json'].schema;
    expect(labels.properties ?? {}).toEqual({});
    expect(labels.additionalProperties.type).toBe('integer');
    const policies = document.paths['/v1/personas/{id}/label-policies'].get.responses['200'].content['application/json'].schema;
    expect(policies.properties ?? {}).toEqual({});
    expect(policies.additionalProperties.$ref).toMatch(/LabelPolicy$/);
    for (const operation of ['/v1/refine', '/v1/check']) {
      const body = document.paths[operation].post.requestBody.content['application/json'].schema;
      expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['personaVersion', 'personaLabel']));
      expect(document.paths[operation].post.responses['200'].headers['X-Persona-Version'].schema.type).toBe('integer');
    }
  });

  it('documents the response headers a client acts on: ETag wherever a persona is answered, Link on every paged list', () => {
    const paths = document.paths as Record<string, Record<string, any>>;
    const answered = [
      ['post', '/v1/personas', '201'],
      ['get', '/v1/personas/{id}', '200'],
      ['patch', '/v1/personas/{id}', '200'],
      ['post', '/v1/personas/{id}/versions/{version}/restore', '200'],
    ] as const;
    for (const [method, path, status] of answered) {
      expect(paths[path]![method].responses[status].headers?.ETag?.schema.type, `${method} ${path}`).toBe('string');
    }
    for (const path of ['/v1/personas', '/v1/personas/{id}/versions', '/v1/audit']) {
      expect(paths[path]!.get.responses['200'].headers?.Link?.schema.type, path).toBe('string');
    }
  });

  it('documents every well-known attribute, rule keys and enforce included, and still allows any other key', () => {
    const attributes = document.components.schemas.PersonaAttributes;
    expect(attributes.type).toBe('object');
    expect(attributes.additionalProperties).toBe(true);
    expect(Object.keys(attributes.properties)).toEqual(expect.arrayContaining([
      'description', 'tone', 'formality', 'audience', 'personality', 'readingLevel', 'language', 'length', 'emoji',
      'vocabulary', 'avoid', 'signOff', 'examples', 'instructions', 'casing', 'maxWords', 'maxSentences', 'enforce',
    ]));
    expect(attributes.properties.maxWords).toMatchObject({ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], examples: [120] });
    expect(attributes.properties.enforce.description).toContain('Never shown to the model');
    expect(attributes.properties.casing.description).toContain('`casing` rule');
    const reference = { $ref: '#/components/schemas/PersonaAttributes' };
    // A read answers what was stored: a persona stored before shapes were checked may not fit them.
    const stored = { $ref: '#/components/schemas/StoredPersonaAttributes' };
    expect(document.components.schemas.Persona.properties.attributes).toEqual(stored);
    expect(document.components.schemas.PersonaVersion.properties.attributes).toEqual(stored);
    expect(document.components.schemas.StoredPersonaAttributes.anyOf).toEqual([reference, { type: 'object', additionalProperties: true }]);
    expect(document.paths['/v1/personas'].post.requestBody.content['application/json'].schema.properties.attributes).toEqual(reference);
    expect(document.paths['/v1/personas/{id}'].patch.requestBody.content['application/json'].schema.properties.attributes).toEqual(reference);
  });

  it('serves a readable docs page at /docs', async () => {
    const res = await server.request('/docs/', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
});
