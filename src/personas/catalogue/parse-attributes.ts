/** Reads a persona's attributes through the catalogue, once, for the prompt and the rules alike. */
import { ATTRIBUTE_CATALOGUE, ATTRIBUTE_KEYS, type AttributeKey, type AttributeValues } from './attributes.js';
import { INVALID } from './shapes.js';
import { isJsonObject } from '../../json-object.js';

export interface AttributeProblem {
  key: AttributeKey;
  /** "attributes.maxWords must be a whole number of at least 1 (for example 120)" */
  message: string;
}

export interface ParsedAttributes {
  /** Normalized values of the well-known keys the persona sets; empty and null values set nothing. */
  values: AttributeValues;
  /**
   * Well-known keys whose value has none of the accepted shapes. Writes refuse them, so only a
   * persona stored before they were checked holds one; the prompt and the rules both ignore it.
   */
  invalid: AttributeProblem[];
}

export function parseAttributes(attributes: Record<string, unknown>): ParsedAttributes {
  const values: Record<string, unknown> = {};
  const invalid: AttributeProblem[] = [];
  // Stored attributes are always an object; anything else sets nothing rather than throwing.
  if (!isJsonObject(attributes)) return { values: {}, invalid };
  for (const key of ATTRIBUTE_KEYS) {
    const raw = attributes[key];
    if (raw === undefined || raw === null) continue;
    const value = ATTRIBUTE_CATALOGUE[key].shape.parse(raw);
    if (value === INVALID) invalid.push({ key, message: shapeMessage(key) });
    else if (value !== undefined) values[key] = value;
  }
  return { values: values as AttributeValues, invalid };
}

/** The write-time 400 and the check warning name the key, the accepted shapes and an example. */
export function shapeMessage(key: AttributeKey): string {
  const { shape, example } = ATTRIBUTE_CATALOGUE[key];
  return `attributes.${key} must be ${shape.expected} (for example ${JSON.stringify(example)}) or null`;
}
