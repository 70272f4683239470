/**
 * What "a secret never appears" means in every test: not the whole key, and not any
 * 6-character fragment of it (every longer fragment contains one; 6 is where the
 * service's own scrubber starts). Checking a prefix is not enough: fixture keys share
 * prefixes, and a leak of a key's tail would pass.
 */
export const FRAGMENT_LENGTH = 6;

/**
 * The key's fragments that occur in `text` (the whole key first, when it does). Fragments
 * lying wholly within the first `publicPrefixLength` characters are skipped: a service
 * key's display prefix is stored and shown by design.
 */
export function secretFragmentsIn(text: string | Buffer, key: string, publicPrefixLength = 0): string[] {
  const haystack = typeof text === 'string' ? text : text.toString('latin1');
  const found = haystack.includes(key) ? [key] : [];
  for (let i = 0; i + FRAGMENT_LENGTH <= key.length; i++) {
    const fragment = key.slice(i, i + FRAGMENT_LENGTH);
    if (i + FRAGMENT_LENGTH > publicPrefixLength && haystack.includes(fragment)) found.push(fragment);
  }
  return found;
}
