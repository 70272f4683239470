/**
 * The shapes of `locale` and `variants`. Like shapes.ts, pure and free of Node and package
 * imports (the studio bundles this folder); `Intl` is the runtime's own.
 */
import { isJsonObject } from '../../json-object.js';
import { INVALID, type JsonSchema, type Shape } from './shapes.js';

/**
 * A BCP 47 tag's syntax (language, script, region, variants, extensions, private use), which the
 * JSON Schema can state; `Intl.getCanonicalLocales` then refuses what the syntax alone lets
 * through (a repeated variant or extension). The tag is stored as given, not canonicalized: the
 * author reads back what they wrote.
 */
export const LOCALE_PATTERN =
  '^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*' +
  '(?:-[0-9A-WYZa-wyz](?:-[A-Za-z0-9]{2,8})+)*(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?$';
const LOCALE = new RegExp(LOCALE_PATTERN);
const LOCALE_MAX_LENGTH = 64;

export function isLocale(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > LOCALE_MAX_LENGTH || !LOCALE.test(value)) return false;
  try {
    Intl.getCanonicalLocales(value);
    return true;
  } catch {
    return false;
  }
}

export const locale: Shape<string> = {
  schema: { type: 'string', maxLength: LOCALE_MAX_LENGTH, pattern: LOCALE_PATTERN },
  expected: 'a BCP 47 language tag such as "de-DE", "en-GB" or "ja"',
  parse: (value) => (isLocale(value) ? value : INVALID),
};

export const MAX_VARIANTS = 50;
export const VARIANT_NAME_PATTERN = '^[A-Za-z0-9_-]{1,40}$';
const VARIANT_NAME = new RegExp(VARIANT_NAME_PATTERN);

export const isVariantName = (name: string): boolean => VARIANT_NAME.test(name);

/** A variant as written: some of the catalogue's keys (not `variants`), each valid for its key or null (unset in the variant). */
export type VariantAttributes = Record<string, unknown>;

/** What `variants` needs of the catalogue: each other key's shape, read when first used (the catalogue holds this shape too). */
export type VariantKeys = () => ReadonlyMap<string, Shape<unknown>>;

/**
 * `{ "de-DE": { "locale": "de-DE", "signOff": "Viele Grüße" }, "support-chat": { … } }`: each name
 * a partial attribute object whose keys are the catalogue's own, each holding one of its shapes.
 * The parsed value is the object as written (merging works on what was written: variants.ts).
 */
export function variantsShape(keys: VariantKeys): Shape<Record<string, VariantAttributes>> {
  return {
    get schema(): JsonSchema {
      const properties = Object.fromEntries(
        [...keys()].map(([key, shape]) => [key, { anyOf: [...((shape.schema.anyOf as JsonSchema[] | undefined) ?? [shape.schema]), { type: 'null' }] }]),
      );
      return {
        type: 'object',
        maxProperties: MAX_VARIANTS,
        propertyNames: { pattern: VARIANT_NAME_PATTERN },
        additionalProperties: { type: 'object', properties, additionalProperties: false },
      };
    },
    expected:
      `an object of at most ${MAX_VARIANTS} variant names (letters, digits, "_" and "-", at most 40) each mapped to an object of ` +
      'well-known attributes other than variants, each valid for its key or null',
    parse(value) {
      if (!isJsonObject(value)) return INVALID;
      const entries = Object.entries(value);
      if (entries.length > MAX_VARIANTS) return INVALID;
      const shapes = keys();
      const validVariant = (variant: unknown) =>
        isJsonObject(variant) &&
        Object.entries(variant).every(([key, setting]) => {
          const shape = shapes.get(key);
          return shape !== undefined && (setting === null || shape.parse(setting) !== INVALID);
        });
      if (!entries.every(([name, variant]) => isVariantName(name) && validVariant(variant))) return INVALID;
      return entries.length > 0 ? (value as Record<string, VariantAttributes>) : undefined;
    },
  };
}
