/**
 * Providers echo the caller's key in their error texts, whole or in part
 * ("Incorrect API key provided: sk-test-ab**********wxyz"). Every provider text passes
 * through here before it can reach a message, a log line or a response.
 */

const REDACTED = '[redacted]';
/** Shorter fragments are too common to be evidence of the key (and too short to help an attacker). */
const MIN_FRAGMENT = 6;
/**
 * Anything that looks like a provider key, masked or not, even if it is not the caller's.
 * Masked whole: even the public prefix (`sk-ant-`) is a fragment of the caller's key.
 */
const KEY_LIKE = /\b(?:sk-ant-|sk-|AIza|gsk_|xai-)[\w*\-]{4,}/g;
const BEARER = /\bBearer\s+\S+/gi;

/** Replaces the key and every fragment of it of at least 6 characters. */
export function scrubSecret(text: string, secret: string): string {
  if (secret.length === 0) return text;
  if (secret.length < MIN_FRAGMENT) return text.split(secret).join(REDACTED);
  let out = '';
  let i = 0;
  while (i < text.length) {
    let length = 0;
    // Grow the match while it is still a fragment of the secret (fragments only grow from a fragment).
    while (i + length < text.length && secret.includes(text.slice(i, i + length + 1))) length++;
    if (length >= MIN_FRAGMENT) {
      out += REDACTED;
      i += length;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

/**
 * A provider's text made safe and short enough for an error message:
 * the key removed, key-looking tokens masked, whitespace collapsed, at most `maxLength` characters.
 */
export function cleanProviderText(text: string, secret: string, maxLength = 300): string {
  // Bound the work before the quadratic-ish scan; anything past this is cut anyway.
  const bounded = text.length > maxLength * 8 ? text.slice(0, maxLength * 8) : text;
  // Masking first: a key-looking token is then replaced whole, not left as the tail after a fragment.
  const masked = bounded.replace(KEY_LIKE, REDACTED).replace(BEARER, `Bearer ${REDACTED}`);
  const clean = scrubSecret(masked, secret)
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}
