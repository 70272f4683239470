/**
 * Keys are checked before anything is sent. A key with a control character (a pasted newline) is
 * otherwise refused by fetch with an error that quotes the whole header, key included, into
 * messages, stacks and logs. The messages here name the key, never its value.
 */

/** C0 controls, DEL and C1 controls: never part of a key, and what a paste drags in. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** The API key travels in a header: visible ASCII only, or fetch refuses it (quoting it). */
const HEADER_SAFE = /^[\u0021-\u007e]+$/;

/** Whether `key` holds a control character (C0, DEL, C1): what a paste drags in. */
export const hasControlCharacter = (key: string): boolean => CONTROL.test(key);
/** Whether `key` may travel in a header: visible ASCII only, non-empty. */
export const isHeaderSafe = (key: string): boolean => HEADER_SAFE.test(key);

export function checkApiKey(apiKey: string): void {
  if (!HEADER_SAFE.test(apiKey)) {
    throw new TypeError(`PersonaRefine: apiKey contains ${CONTROL.test(apiKey) ? 'a control character (a pasted newline?)' : 'a space or a non-ASCII character'}; it was not sent`);
  }
}

/** Provider keys travel in the JSON body; the server refuses control characters in them, so the SDK does first. */
export function checkProviderKeys(input: { providerApiKey?: string; fallbacks?: ReadonlyArray<{ providerApiKey?: string }> }): void {
  const keys = [['providerApiKey', input.providerApiKey], ...(input.fallbacks ?? []).map((fallback, i) => [`fallbacks[${i}].providerApiKey`, fallback.providerApiKey])];
  for (const [name, key] of keys) {
    if (typeof key === 'string' && CONTROL.test(key)) {
      throw new TypeError(`PersonaRefine: ${name} contains a control character (a pasted newline?); nothing was sent`);
    }
  }
}
