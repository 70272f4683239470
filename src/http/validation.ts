/**
 * Request validation. Bodies are validated strictly — no type coercion, no
 * silently dropped fields — so `{"name": 123}` is a 400, not a persona named
 * "123". Query strings and path parameters are text, so those are coerced.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { ATTRIBUTE_CATALOGUE, isWellKnownAttribute, shapeMessage } from '../personas/catalogue/index.js';
import { PATTERN_MESSAGES } from '../schemas/refine.js';

const shared = { allErrors: false, strict: false, useDefaults: true, removeAdditional: false } as const;
const bodyAjv = new Ajv({ ...shared, coerceTypes: false });
const textAjv = new Ajv({ ...shared, coerceTypes: true });
/** Only for a body that already failed: every unknown and missing field at once, not one per retry. */
const thoroughBodyAjv = new Ajv({ ...shared, coerceTypes: false, allErrors: true });

/** The failures that belong in one message with the first: the other unknown and missing fields of the same object. */
const FIELD_KEYWORDS = new Set(['additionalProperties', 'required']);
function fieldSiblings(first: ErrorObject, all: ErrorObject[]): ErrorObject[] {
  if (!FIELD_KEYWORDS.has(first.keyword)) return [];
  return all.filter((error) => error.instancePath === first.instancePath && FIELD_KEYWORDS.has(error.keyword) && !sameField(error, first));
}
const fieldOf = (error: ErrorObject) => String((error.params as Record<string, unknown>).additionalProperty ?? (error.params as Record<string, unknown>).missingProperty);
const sameField = (a: ErrorObject, b: ErrorObject) => a.keyword === b.keyword && fieldOf(a) === fieldOf(b);

/**
 * Compiled on a route's first request, not at startup: compiling every route's schemas was
 * a fifth of the cold start, and a route's first request pays only its own (a millisecond or two).
 */
function compiledOnFirstUse(compile: () => ValidateFunction, compileThorough?: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  let thorough: ValidateFunction | undefined;
  const lazy = ((data: unknown) => {
    validate ??= compile();
    const valid = validate(data);
    // Fastify reads the failures from the function it was given.
    lazy.errors = validate.errors;
    const first = validate.errors?.[0];
    if (!valid && first && compileThorough && FIELD_KEYWORDS.has(first.keyword)) {
      thorough ??= compileThorough();
      thorough(data);
      lazy.errors = [first, ...fieldSiblings(first, thorough.errors ?? [])];
    }
    return valid;
  }) as ValidateFunction;
  return lazy;
}

export function installValidation(app: FastifyInstance): void {
  const compileWith = (ajv: Ajv, schema: object) => {
    // A request schema may $ref a shared schema (app.addSchema), which this Ajv must know too.
    const text = JSON.stringify(schema);
    for (const shared of Object.values(app.getSchemas()) as { $id: string }[]) {
      if (text.includes(`"$ref":"${shared.$id}"`) && !ajv.getSchema(shared.$id)) ajv.addSchema(shared);
    }
    return ajv.compile(schema);
  };
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body'
      ? compiledOnFirstUse(() => compileWith(bodyAjv, schema), () => compileWith(thoroughBodyAjv, schema))
      : compiledOnFirstUse(() => compileWith(textAjv, schema)),
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

const quotedList = (names: string[]) => names.map((name) => `"${name}"`).join(', ');
const andList = (names: string[]) => (names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`);

/**
 * Every unknown and every missing field of one object in one sentence, so a body with "text"
 * for "content" learns both at once: `unknown field "text" in request body; content is required`.
 */
function fieldsMessage(errors: ErrorObject[], field: string | undefined, where: string): string {
  const unknown = errors.filter((error) => error.keyword === 'additionalProperties').map(fieldOf);
  const missing = errors.filter((error) => error.keyword === 'required').map((error) => `${field ? `${field}.` : ''}${fieldOf(error)}`);
  const parts: string[] = [];
  if (unknown.length > 0) parts.push(`unknown field${unknown.length > 1 ? 's' : ''} ${quotedList(unknown)} in ${field ?? where}`);
  if (missing.length > 0) parts.push(`${andList(missing)} ${missing.length > 1 ? 'are' : 'is'} required`);
  return parts.join('; ');
}

/** Inside a list of objects (`terms`), the entry and field at fault, or the list's own length. */
function preciseAttributeError(attribute: keyof typeof ATTRIBUTE_CATALOGUE, error: ErrorObject): boolean {
  if (ATTRIBUTE_CATALOGUE[attribute].shape.preciseErrors !== true) return false;
  return error.instancePath !== `/attributes/${attribute}` || error.keyword === 'maxItems';
}

/** One clear sentence for the first validation failure, naming the field (all unknown and missing fields of its object). */
export function validationMessage(errors: ErrorObject[], part = 'body'): string {
  const error = errors[0];
  const where = PARTS[part] ?? part;
  if (!error) return `${where} is invalid`;
  const attribute = part === 'body' ? WELL_KNOWN_ATTRIBUTE.exec(error.instancePath)?.[1] : undefined;
  if (attribute !== undefined && isWellKnownAttribute(attribute) && !preciseAttributeError(attribute, error)) return shapeMessage(attribute);
  const field = fieldName(error, part);
  const subject = field ?? where;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
    case 'required':
      return fieldsMessage(errors.filter((other) => other.instancePath === error.instancePath && FIELD_KEYWORDS.has(other.keyword)), field, where);
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
    case 'enum':
      return `${subject} must be one of ${quotedList((params.allowedValues as unknown[]).map(String))}`;
    case 'pattern':
      return `${subject} ${PATTERN_MESSAGES[String(params.pattern)] ?? 'contains characters that are not allowed'}`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}
