/**
 * A persona's `variants` as the editor changes them: add, rename and remove one, every other
 * variant (and its place in the object) kept. The names' rule is the catalogue's.
 */
import { isVariantName, MAX_VARIANTS } from '../../../src/personas/catalogue/index.js';
import type { Attributes } from '../api/types.js';
import { isPlainObject, withAttribute } from './attributes.js';

export { MAX_VARIANTS };

/** The persona's variants, or undefined when `variants` holds something else (left to the JSON view). */
export function variantsOf(attributes: Attributes): Record<string, Attributes> | undefined {
  const variants = attributes.variants;
  if (variants === undefined || variants === null) return {};
  if (!isPlainObject(variants) || !Object.values(variants).every(isPlainObject)) return undefined;
  return variants as Record<string, Attributes>;
}

export const variantNames = (attributes: Attributes): string[] => Object.keys(variantsOf(attributes) ?? {});

/** Why a name cannot be given to a variant (given the others), or undefined when it can. */
export function variantNameProblem(name: string, others: readonly string[]): string | undefined {
  if (name === '') return 'Type a name.';
  if (!isVariantName(name)) return 'Use at most 40 letters, digits, “_” and “-”, such as de-DE or support-chat.';
  if (others.includes(name)) return `There is already a variant named “${name}”.`;
  return undefined;
}

/** `variants` with this variant set to `value`; an empty object removes the attribute. */
function withVariants(attributes: Attributes, variants: Record<string, Attributes>): Attributes {
  return withAttribute(attributes, 'variants', Object.keys(variants).length > 0 ? variants : undefined);
}

export const withVariant = (attributes: Attributes, name: string, value: Attributes): Attributes =>
  withVariants(attributes, withAttribute(variantsOf(attributes) ?? {}, name, value) as Record<string, Attributes>);

export const withoutVariant = (attributes: Attributes, name: string): Attributes =>
  withVariants(attributes, withAttribute(variantsOf(attributes) ?? {}, name, undefined) as Record<string, Attributes>);

/** Renamed in place: the variant keeps its position among the others. */
export function withRenamedVariant(attributes: Attributes, from: string, to: string): Attributes {
  const renamed = Object.fromEntries(Object.entries(variantsOf(attributes) ?? {}).map(([name, value]) => [name === from ? to : name, value]));
  return withVariants(attributes, renamed);
}
