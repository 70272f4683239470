/**
 * Failures in plain words. The service's messages are precise but written for developers
 * (`provider "openai" rejected providerApiKey (HTTP 401)`); the studio leads with what it
 * means for the person at the keyboard and keeps the original one click away.
 */
import { type ApiError, asSentence } from './api-error.js';
import type { ProviderNames } from './providers.js';

const seconds = (ms: string) => `${Math.round(Number(ms) / 100) / 10} seconds`;

type Explain = (name: string, match: RegExpExecArray, error: ApiError) => string;

/** Provider failures: the message starts with `provider "<id>"` (docs/http-contract.md, "Errors"), then one of these. */
const PROVIDER_FAILURES: [RegExp, Explain][] = [
  [/^rejected providerApiKey/, (name) => `${name} did not accept your API key. Check the provider key and try again.`],
  [
    /^is rate limiting requests/,
    (name, _m, e) => `${name} is rate limiting your key. Try again ${e.retryAfterSeconds ? `in ${e.retryAfterSeconds} s` : 'shortly'}.`,
  ],
  [/^rejected the request \(HTTP \d+\): ([\s\S]*)$/, (name, m) => `${name} refused the request: ${asSentence(m[1] ?? '')}`],
  [/^is overloaded/, (name) => `${name} is overloaded right now. Try again in a moment.`],
  [/^failed \(HTTP (\d+)\)/, (name, m) => `${name} had an internal error (HTTP ${m[1]}). Try again in a moment.`],
  [/^could not be reached \((.+)\)$/, (name, m) => `Could not reach ${name} (${m[1]}).`],
  [/^did not answer within (\d+) ms/, (name, m) => `${name} did not answer within ${seconds(m[1] ?? '0')}.`],
  [/^answered/, (name) => `${name} sent an answer that could not be read. Try again or pick another model.`],
];

function explainProviderFailure(error: ApiError, providerName: ProviderNames): string {
  const match = /^provider "([^"]+)" ([\s\S]*)$/.exec(error.message);
  if (!match) return asSentence(error.message);
  const name = providerName(match[1] ?? '');
  const detail = match[2] ?? '';
  for (const [pattern, explain] of PROVIDER_FAILURES) {
    const found = pattern.exec(detail);
    if (found) return explain(name, found, error);
  }
  return `${name}: ${asSentence(detail)}`;
}

/** One sentence for any failed call; the service's own words for anything not listed here. */
export function plainError(error: ApiError, providerName: ProviderNames = (id) => id): string {
  if (error.source === 'provider') return explainProviderFailure(error, providerName);
  switch (error.status) {
    case 0:
      return error.message;
    case 401:
      return 'Your API key is no longer accepted. Sign in again.';
    case 404:
      if (/ is not a persona id$/.test(error.message)) return `${error.message}: check the address for a missing or extra character.`;
      return /persona/i.test(error.message) ? 'This persona no longer exists; someone may have deleted it.' : asSentence(error.message);
    case 429:
      return `Too many requests. Try again ${error.retryAfterSeconds ? `in ${error.retryAfterSeconds} s` : 'shortly'}.`;
    case 503:
      return 'The service is busy or its storage is unavailable. Try again in a moment.';
    default:
      return error.status >= 500 ? `The service failed (HTTP ${error.status}). Try again in a moment.` : asSentence(error.message);
  }
}

export type PersonaField = 'name' | 'attributes' | 'general';

/** Which part of a persona a 400 from the service is about, so its message can sit beside that field. */
export function personaFieldOf(message: string): PersonaField {
  if (/^name\b/.test(message)) return 'name';
  if (/^attributes\b|in attributes$|"__proto__"/.test(message)) return 'attributes';
  return 'general';
}
