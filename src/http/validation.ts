/**
 * Request validation. Bodies are validated strictly — no type coercion, no
 * silently dropped fields — so `{"name": 123}` is a 400, not a persona named
 * "123". Query strings and path parameters are text, so those are coerced.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { isWellKnownAttribute, shapeMessage } from '../personas/catalogue/index.js';
import { PATTERN_MESSAGES } from '../schemas/refine.js';

const shared = { allErrors: false, strict: false, useDefaults: true, removeAdditional: false } as const;
const bodyAjv = new Ajv({ ...shared, coerceTypes: false });
const textAjv = new Ajv({ ...shared, coerceTypes: true });

/**
 * Compiled on a route's first request, not at startup: compiling every route's schemas was
 * a fifth of the cold start, and a route's first request pays only its own (a millisecond or two).
 */
function compiledOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const lazy = ((data: unknown) => {
    validate ??= compile();
    const valid = validate(data);
    // Fastify reads the failures from the function it was given.
    lazy.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return lazy;
}

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    compiledOnFirstUse(() => {
      const ajv = httpPart === 'body' ? bodyAjv : textAjv;
      // A request schema may $ref a shared schema (app.addSchema), which this Ajv must know too.
      const text = JSON.stringify(schema);
      for (const shared of Object.values(app.getSchemas()) as { $id: string }[]) {
        if (text.includes(`"$ref":"${shared.$id}"`) && !ajv.getSchema(shared.$id)) ajv.addSchema(shared);
      }
      return ajv.compile(schema);
    }),
  );
}

// A well-known attribute's shapes are alternatives; the catalogue names all of them at once.
const WELL_KNOWN_ATTRIBUTE = /^\/attributes\/([^/]+)/;

const PARTS: Record<string, string> = { body: 'request body', querystring: 'query string', params: 'path', headers: 'headers' };

function fieldName(error: ErrorObject, part: string): string | undefined {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return path === '' ? undefined : part === 'querystring' ? `query parameter ${path}` : path;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** One clear sentence for the first validation failure, naming the field. */
export function validationMessage(errors: ErrorObject[], part = 'body'): string {
  const error = errors[0];
  const where = PARTS[part] ?? part;
  if (!error) return `${where} is invalid`;
  const attribute = part === 'body' ? WELL_KNOWN_ATTRIBUTE.exec(error.instancePath)?.[1] : undefined;
  if (attribute !== undefined && isWellKnownAttribute(attribute)) return shapeMessage(attribute);
  const field = fieldName(error, part);
  const subject = field ?? where;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown field "${String(params.additionalProperty)}" in ${field ?? where}`;
    case 'required': {
      const missing = String(params.missingProperty);
      return `${field ? `${field}.` : ''}${missing} is required`;
    }
    case 'type': {
      const type = String(params.type);
      if (!field && part === 'body') return 'request body must be a JSON object';
      return `${subject} must be ${type === 'null' ? 'null' : article(type)}`;
    }
    case 'minLength':
      return params.limit === 1 ? `${subject} must not be empty` : `${subject} must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `${subject} must be at most ${String(params.limit)} characters`;
    case 'minProperties':
      return `${where} must contain at least one field`;
    case 'maxItems':
      return `${subject} must have at most ${String(params.limit)} items`;
    case 'minimum':
      return `${subject} must be at least ${String(params.limit)}`;
    case 'maximum':
      return `${subject} must be at most ${String(params.limit)}`;
    case 'pattern':
      return `${subject} ${PATTERN_MESSAGES[String(params.pattern)] ?? 'contains characters that are not allowed'}`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}
