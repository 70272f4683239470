/**
 * A refine's answer as headers, written once for every way it is given: answered whole,
 * streamed (what is known before the first byte), and stored for an Idempotency-Key replay of
 * either. A copy per way drifted: a streamed answer's replay lost `X-Usage`. A replay keeps
 * what `REPLAYED_HEADERS` (http/idempotency.ts) names: a new header goes there too, or
 * test/http/refine-answer-headers.test.ts fails.
 */
import type { RefineRun, RunEnd } from '../refine/refine-run.js';
import { summarizeViolations } from '../rules/index.js';
import type { JudgeVerdict } from '../scoring/judge-verdict.js';
import { usageHeader } from '../usage/usage-tally.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Text as a header value: printable ASCII as it is, `%` and everything else percent-encoded (UTF-8). */
const headerSafe = (text: string) => text.replace(LONE_SURROGATE, '\uFFFD').replace(/[^\x20-\x24\x26-\x7E]+/g, encodeURIComponent);

/**
 * A judged refine's headers (docs/voice-score.md, "The judge"): `X-Persona-Ratings:
 * tone=4,my%20key=5` (attribute names percent-encoded, absent when nothing was rated),
 * `X-Persona-Judge-Error` when the judge failed, or `X-Persona-Judge-Warning` when it had nothing to rate.
 */
export function judgeHeaders(verdict: JudgeVerdict | undefined): Record<string, string> {
  if (verdict === undefined) return {};
  if ('error' in verdict) return { 'x-persona-judge-error': headerSafe(verdict.error) };
  if (verdict.warning !== undefined) return { 'x-persona-judge-warning': headerSafe(verdict.warning) };
  if (verdict.ratings.length === 0) return {};
  return { 'x-persona-ratings': verdict.ratings.map(({ attribute, rating }) => `${encodeURIComponent(attribute.replace(LONE_SURROGATE, '\uFFFD'))}=${rating}`).join(',') };
}

/** What is known once a provider answered, before any byte of the answer: `X-Persona-Version`, `X-Persona-Variant` (with a variant), `X-Provider: <id>/<model>`, `X-Cache` and `Age`. */
export function runHeaders(run: Pick<RefineRun, 'personaVersion' | 'personaVariant' | 'provider' | 'model' | 'cache'>): Record<string, string> {
  const headers: Record<string, string> = {
    'x-persona-version': String(run.personaVersion),
    ...(run.personaVariant === undefined ? {} : { 'x-persona-variant': run.personaVariant }),
    'x-provider': run.model === undefined ? run.provider : `${run.provider}/${run.model}`,
  };
  if (run.cache) headers['x-cache'] = run.cache.hit ? 'HIT' : 'MISS';
  if (run.cache?.hit) headers.age = String(run.cache.ageSeconds);
  return headers;
}

/** What the end of the run adds: `X-Persona-Violations` (when some remain), `X-Persona-Score`, the judge's headers and `X-Usage`. */
export function endHeaders(end: Pick<RunEnd, 'violations' | 'score' | 'judge' | 'usage'>): Record<string, string> {
  return {
    ...(end.violations.length > 0 ? { 'x-persona-violations': summarizeViolations(end.violations) } : {}),
    'x-persona-score': String(end.score.score),
    ...judgeHeaders(end.judge),
    'x-usage': usageHeader(end.usage),
  };
}

/** The whole answer's headers: the run's, then its end's. */
export const answerHeaders = (run: Parameters<typeof runHeaders>[0], end: Parameters<typeof endHeaders>[0]): Record<string, string> => ({
  ...runHeaders(run),
  ...endHeaders(end),
});
