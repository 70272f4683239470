/**
 * What the refine headers say about an answer, as the non-enumerable fields of
 * a refine result: the result still serializes as `{ response }`.
 */
import type { RefineResult } from './types.js';

/** `avoid=1,maxWords=1` → `{ avoid: 1, maxWords: 1 }`. */
export function parseViolations(header: string | null): Record<string, number> {
  const violations: Record<string, number> = {};
  for (const pair of (header ?? '').split(',')) {
    const [rule, count] = pair.split('=');
    if (rule?.trim() && Number.isFinite(Number(count))) violations[rule.trim()] = Number(count);
  }
  return violations;
}

/** `input_tokens=12, output_tokens=8, provider_calls=1` → `{ inputTokens: 12, outputTokens: 8, providerCalls: 1 }`; absent members stay absent. */
export function parseUsage(header: string | null): RefineResult['usage'] {
  const members: Record<string, number> = {};
  for (const pair of (header ?? '').split(',')) {
    const [name, value] = pair.split('=');
    if (name?.trim() && value !== undefined && /^\s*\d+\s*$/.test(value)) members[name.trim()] = Number(value);
  }
  return {
    ...(members.input_tokens === undefined ? {} : { inputTokens: members.input_tokens }),
    ...(members.output_tokens === undefined ? {} : { outputTokens: members.output_tokens }),
    providerCalls: members.provider_calls ?? 0,
  };
}

/** `anthropic/claude-haiku-4-5` → `{ id: 'anthropic', model: 'claude-haiku-4-5' }`; models may contain `/` themselves. */
export function parseProvider(header: string | null): RefineResult['provider'] {
  const value = header ?? '';
  const slash = value.indexOf('/');
  return slash === -1 ? { id: value } : { id: value.slice(0, slash), model: value.slice(slash + 1) };
}

function parseCache(headers: Headers): RefineResult['cache'] {
  const status = headers.get('x-cache');
  if (status !== 'HIT' && status !== 'MISS') return undefined;
  const age = Number(headers.get('age'));
  return status === 'HIT' ? { hit: true, ageSeconds: Number.isFinite(age) ? age : 0 } : { hit: false };
}

/** `87` → 87; absent or not a whole number 0–100 → undefined. */
export function parseScore(header: string | null): number | undefined {
  if (header === null || !/^\s*\d{1,3}\s*$/.test(header)) return undefined;
  const score = Number(header);
  return score <= 100 ? score : undefined;
}

/** A percent-encoded attribute name; one that is not validly encoded is kept as it came. */
function decoded(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** `tone=4, my%20key=5` → `[{ attribute: 'tone', rating: 4 }, { attribute: 'my key', rating: 5 }]`; undefined when not judged. */
function parseRatings(header: string | null): RefineResult['ratings'] {
  if (header === null) return undefined;
  const ratings: { attribute: string; rating: number }[] = [];
  for (const pair of header.split(',')) {
    const [attribute, rating] = pair.split('=');
    if (attribute?.trim() && /^\s*[1-5]\s*$/.test(rating ?? '')) ratings.push({ attribute: decoded(attribute.trim()), rating: Number(rating) });
  }
  return ratings;
}

/** Percent-encoded as every header text the service sends beyond printable ASCII. */
const judgeWarningOf = (header: string | null) => (header === null ? undefined : decoded(header));

export function refineResult(body: { response: string }, headers: Headers): RefineResult {
  const hidden = (value: unknown) => ({ value, enumerable: false });
  return Object.defineProperties(body, {
    violations: hidden(parseViolations(headers.get('x-persona-violations'))),
    usage: hidden(parseUsage(headers.get('x-usage'))),
    provider: hidden(parseProvider(headers.get('x-provider'))),
    cache: hidden(parseCache(headers)),
    personaVersion: hidden(Number(headers.get('x-persona-version'))),
    personaVariant: hidden(headers.get('x-persona-variant') ?? undefined),
    score: hidden(parseScore(headers.get('x-persona-score'))),
    ratings: hidden(parseRatings(headers.get('x-persona-ratings'))),
    judgeError: hidden(headers.get('x-persona-judge-error') ?? undefined),
    judgeWarning: hidden(judgeWarningOf(headers.get('x-persona-judge-warning'))),
    requestId: hidden(headers.get('x-request-id') ?? undefined),
  }) as RefineResult;
}
