/**
 * Every 2xx JSON body a test receives through `TestServer.request` is checked against the
 * OpenAPI document's response schema for its route and status (docs/http-contract.md,
 * "Response bodies"): a handler that sends something its schema does not describe fails the
 * test that received it. There is no opt-out.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

// ajv-formats is CommonJS: its default export is the function, wrapped once more under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
}

export class ResponseBodyCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();
  /** How many bodies were checked: a test of the check can tell it ran. */
  checked = 0;

  private readonly document: OpenApiDocument;

  constructor(document: object) {
    this.document = document as OpenApiDocument;
    addFormats(this.ajv);
    // OpenAPI's own number formats; the schemas' `type: integer` already says what they mean here.
    for (const format of ['int32', 'int64', 'float', 'double']) this.ajv.addFormat(format, { type: 'number', validate: () => true });
    this.ajv.addSchema(document, 'openapi.json');
    // Literal templates first, so /v1/keys/current is not read as /v1/keys/{id}.
    this.routes = Object.keys(this.document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}/]+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The operation's path template in the document, or undefined for a route it does not describe (/health, /metrics…). */
  routeOf(path: string): string | undefined {
    const pathname = new URL(path, 'http://x').pathname;
    return this.routes.find((route) => route.pattern.test(pathname))?.template;
  }

  /** Throws, naming the route and what does not match, when `body` is not what the document promises. */
  check(method: string, path: string, status: number, body: string): void {
    const template = this.routeOf(path);
    if (template === undefined) return;
    const operation = this.document.paths[template]?.[method.toLowerCase()];
    if (operation === undefined) return;
    const where = `${method.toUpperCase()} ${template} ${status}`;
    const response = operation.responses?.[String(status)] ?? operation.responses?.['2XX'];
    if (response === undefined) throw new Error(`${where}: a JSON body for a status the OpenAPI document does not list`);
    if (response.content?.['application/json']?.schema === undefined) throw new Error(`${where}: a JSON body where the OpenAPI document describes none`);
    const key = `${template}|${method.toLowerCase()}|${status in (operation.responses ?? {}) ? status : '2XX'}`;
    let validate = this.validators.get(key);
    if (!validate) {
      const pointer = ['paths', template, method.toLowerCase(), 'responses', key.split('|')[2]!, 'content', 'application/json', 'schema']
        .map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1')))
        .join('/');
      validate = this.ajv.compile({ $ref: `openapi.json#/${pointer}` });
      this.validators.set(key, validate);
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      throw new Error(`${where}: the body is not JSON: ${body.slice(0, 200)}`);
    }
    this.checked++;
    if (!validate(value)) {
      const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
      throw new Error(`${where}: the body does not match the OpenAPI document's response schema:\n  ${errors.join('\n  ')}\n  body: ${body.slice(0, 500)}`);
    }
  }
}

/** Checks `response` if it is a 2xx JSON body; reads a clone, so the caller still gets the whole body. */
export async function checkResponseBody(check: () => Promise<ResponseBodyCheck>, method: string, path: string, response: Response): Promise<void> {
  if (response.status < 200 || response.status >= 300 || method.toUpperCase() === 'HEAD') return;
  if (!/^application\/json\b/i.test(response.headers.get('content-type') ?? '')) return;
  const text = await response.clone().text();
  (await check()).check(method, path, response.status, text);
}
