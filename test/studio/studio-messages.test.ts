/** How the studio words failures and reads the service's headers and messages. */
import { describe, expect, it } from 'vitest';
import { ApiError, asSentence } from '../../studio/src/api/api-error.js';
import { personaFieldOf, plainError } from '../../studio/src/api/plain-errors.js';
import { type Provider, providerNames } from '../../studio/src/api/providers.js';
import { formatMs, parseServerTiming } from '../../studio/src/api/server-timing.js';
import { ATTRIBUTE_CATALOGUE, ATTRIBUTE_KEYS } from '../../src/personas/catalogue/index.js';
import { FIELD_GROUPS, formCanEdit, isAcceptedValue } from '../../studio/src/personas/attribute-fields.js';
import { withAttribute } from '../../studio/src/personas/attributes.js';

/** As GET /v1/providers lists them (test/http/providers.test.ts checks the service's list). */
const PROVIDERS: Provider[] = [
  ['openai', 'OpenAI'], ['anthropic', 'Anthropic'], ['google', 'Google Gemini'], ['mistral', 'Mistral'],
  ['groq', 'Groq'], ['deepseek', 'DeepSeek'], ['xai', 'xAI'], ['localllm', 'localllm'],
].map(([id, name]) => ({ id: id!, name: name!, defaultModel: 'm', requiresKey: true }));
const fromProvider = (message: string, retryAfter?: number) =>
  plainError(new ApiError(400, message, 'provider', retryAfter), providerNames(PROVIDERS));

describe('plain words for failures', () => {
  it.each([
    ['provider "openai" rejected providerApiKey (HTTP 401)', 'OpenAI did not accept your API key. Check the provider key and try again.'],
    ['provider "google" rejected providerApiKey (HTTP 400)', 'Google Gemini did not accept your API key. Check the provider key and try again.'],
    ['provider "anthropic" rejected the request (HTTP 404): model: claude-x not found', 'Anthropic refused the request: Model: claude-x not found.'],
    ['provider "mistral" is overloaded (HTTP 529): busy', 'Mistral is overloaded right now. Try again in a moment.'],
    ['provider "groq" failed (HTTP 500): oops', 'Groq had an internal error (HTTP 500). Try again in a moment.'],
    ['provider "deepseek" could not be reached (connection refused)', 'Could not reach DeepSeek (connection refused).'],
    ['provider "xai" did not answer within 60000 ms', 'xAI did not answer within 60 seconds.'],
    ['provider "localllm" answered with a body that is not JSON (HTTP 200)', 'localllm sent an answer that could not be read. Try again or pick another model.'],
    ['provider "openai" something new', 'OpenAI: Something new.'],
  ])('%s', (message, words) => {
    expect(fromProvider(message)).toBe(words);
  });

  it('includes the wait a rate limit asks for', () => {
    expect(fromProvider('provider "openai" is rate limiting requests (HTTP 429): slow down', 7)).toBe('OpenAI is rate limiting your key. Try again in 7 s.');
  });

  it('words the service’s own failures for people, keeping its precise messages for the rest', () => {
    expect(plainError(new ApiError(401, 'invalid API key', 'service'))).toBe('Your API key is no longer accepted. Sign in again.');
    expect(plainError(new ApiError(404, 'persona "p1" not found', 'service'))).toBe('This persona no longer exists; someone may have deleted it.');
    // A link that lost a character names no persona at all: nobody deleted anything.
    expect(plainError(new ApiError(404, '"01a2-e9e" is not a persona id', 'service'))).toBe(
      '"01a2-e9e" is not a persona id: check the address for a missing or extra character.',
    );
    expect(plainError(new ApiError(429, 'rate limit', 'service', 3))).toBe('Too many requests. Try again in 3 s.');
    expect(plainError(new ApiError(502, 'x', 'service'))).toBe('The service failed (HTTP 502). Try again in a moment.');
    expect(plainError(new ApiError(400, 'name must be a non-empty string of at most 200 characters', 'service'))).toBe(
      'Name must be a non-empty string of at most 200 characters.',
    );
    expect(asSentence('done!')).toBe('Done!');
  });

  it('places a validation message beside the field it is about', () => {
    expect(personaFieldOf('name must be a non-empty string of at most 200 characters')).toBe('name');
    expect(personaFieldOf('attributes must be at most 64 KiB when serialized as JSON')).toBe('attributes');
    expect(personaFieldOf('attributes must be an object')).toBe('attributes');
    expect(personaFieldOf('request body must not contain "__proto__" or "constructor.prototype" keys')).toBe('attributes');
    expect(personaFieldOf('unknown field "etag" in request body')).toBe('general');
  });
});

describe('reading the service', () => {
  it('reads Server-Timing', () => {
    expect(parseServerTiming('provider;dur=118.2, total;dur=123.9')).toEqual({ providerMs: 118.2, totalMs: 123.9 });
    expect(parseServerTiming('total;desc="all";dur=5')).toEqual({ totalMs: 5 });
    expect(parseServerTiming('cache;desc=hit')).toBeUndefined();
    expect(parseServerTiming(null)).toBeUndefined();
    expect([formatMs(1.234), formatMs(123.4), formatMs(2500)]).toEqual(['1.2 ms', '123 ms', '2.50 s']);
  });

  it('names providers as the service lists them, and an unlisted id by itself', () => {
    const name = providerNames(PROVIDERS);
    expect([name('xai'), name('localllm'), name('my-proxy')]).toEqual(['xAI', 'localllm', 'my-proxy']);
    expect(plainError(new ApiError(400, 'provider "openai" rejected providerApiKey (HTTP 401)', 'provider'))).toBe(
      'openai did not accept your API key. Check the provider key and try again.',
    );
  });
});

describe('editing attributes', () => {
  it('changes one key in place, appends new keys, removes cleared ones, and keeps the rest', () => {
    const attributes = { z: 1, tone: 'calm', custom: { deep: [1] } };
    expect(JSON.stringify(withAttribute(attributes, 'tone', 'bold'))).toBe('{"z":1,"tone":"bold","custom":{"deep":[1]}}');
    expect(JSON.stringify(withAttribute(attributes, 'avoid', ['x']))).toBe('{"z":1,"tone":"calm","custom":{"deep":[1]},"avoid":["x"]}');
    expect(JSON.stringify(withAttribute(attributes, 'tone', undefined))).toBe('{"z":1,"custom":{"deep":[1]}}');
    expect(attributes.tone).toBe('calm');
  });

  it('leaves values of an unexpected shape to the JSON view rather than changing them', () => {
    const field = (key: string) => FIELD_GROUPS.flatMap((group) => group.fields).find((candidate) => candidate.key === key)!;
    expect(formCanEdit(field('tone'), ['warm', 'direct'])).toBe(false);
    expect(isAcceptedValue('tone', ['warm', 'direct'])).toBe(true);
    expect(formCanEdit(field('avoid'), 'synergy')).toBe(true);
    expect(formCanEdit(field('maxWords'), 0)).toBe(false);
    expect(formCanEdit(field('maxWords'), '120')).toBe(false);
    expect(isAcceptedValue('maxWords', '120')).toBe(false);
    expect(formCanEdit(field('maxWords'), null)).toBe(true);
    expect(formCanEdit(field('vocabulary'), { utilize: 'use', x: 1 })).toBe(false);
    expect(formCanEdit(field('examples'), [{ before: 'a', after: 'b', note: 'kept' }])).toBe(true);
    expect(formCanEdit(field('examples'), ['a'])).toBe(false);
  });

  it('draws a field for every well-known key the catalogue gives one, and none for enforce', () => {
    const drawn = FIELD_GROUPS.flatMap((group) => group.fields.map((field) => field.key));
    expect(drawn.sort()).toEqual(ATTRIBUTE_KEYS.filter((key) => ATTRIBUTE_CATALOGUE[key].field).sort());
    expect(drawn).not.toContain('enforce');
  });
});
