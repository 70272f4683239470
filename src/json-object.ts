/** A JSON object: not null, not an array. Attributes, provider answers and error bodies are checked with it. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
