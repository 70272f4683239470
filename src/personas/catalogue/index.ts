/**
 * The catalogue of well-known persona attributes (attributes.ts) and how a persona's attributes
 * are read through it. Shared by the service and the studio: nothing in this folder may import
 * Node or a package (test/unit/attribute-catalogue.test.ts checks).
 */
export {
  ATTRIBUTE_CATALOGUE,
  ATTRIBUTE_KEYS,
  type AttributeKey,
  type AttributeSpec,
  type AttributeValues,
  type FieldGroup,
  type FieldKind,
  isWellKnownAttribute,
  type StudioField,
} from './attributes.js';
export { type AttributeProblem, type ParsedAttributes, parseAttributes, shapeMessage } from './parse-attributes.js';
export { type ExamplePair, INVALID, type JsonSchema, type Shape } from './shapes.js';
export { isLocale, isVariantName, MAX_VARIANTS, VARIANT_NAME_PATTERN, type VariantAttributes } from './locale-and-variants.js';
export {
  inflectsByDefault,
  MAX_TERM_ENTRIES,
  MAX_TERM_NOTE_LENGTH,
  MAX_TERM_REPLACES,
  TERM_FORMS,
  TERM_USES,
  type TermEntry,
  type TermForms,
  type TermUse,
} from './term-base.js';
