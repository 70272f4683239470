import { describe, expect, it } from 'vitest';
import { errorBodyMessage, retryDelayFromBody } from '../../src/providers/provider-error-body.js';
import { cleanProviderText, GOOGLE_KEY_PREFIX, SecretScrubber } from '../../src/providers/secret-scrubber.js';

const scrubSecret = (text: string, secret: string) => new SecretScrubber([secret]).scrub(text);
const only = (secret: string) => new SecretScrubber([secret]);

const key = 'sk-test-abcdefghijklmnopqrstuvwxyz';

describe('SecretScrubber.scrub', () => {
  it('removes the whole key', () => {
    expect(scrubSecret(`bad key ${key}!`, key)).toBe('bad key [redacted]!');
  });

  it('removes every fragment of 6 characters or more, and keeps shorter ones', () => {
    expect(scrubSecret('hint: sk-test-ab…wxyz and klmnop', key)).toBe('hint: [redacted]…wxyz and [redacted]');
    expect(scrubSecret('abcde', key)).toBe('abcde');
  });

  it.each([
    ['upper-cased', (k: string) => k.toUpperCase()],
    ['lower-cased', (k: string) => k.toLowerCase()],
    ['percent-encoded, every byte', (k: string) => [...Buffer.from(k)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')],
    ['percent-encoded as a URL would', (k: string) => encodeURIComponent(k)],
    ['in base64', (k: string) => Buffer.from(k).toString('base64')],
    ['in base64 inside a Basic credential', (k: string) => Buffer.from(`user:${k}`).toString('base64')],
    ['in base64url after two bytes', (k: string) => Buffer.from(`ab${k}`).toString('base64url')],
    ['in hex', (k: string) => Buffer.from(k).toString('hex')],
    ['in upper-case hex', (k: string) => Buffer.from(k).toString('hex').toUpperCase()],
    ['with separators', (k: string) => k.split('').join('-')],
    ['with spaces and dots', (k: string) => k.split('').join(' . ')],
  ])('removes the key %s, leaving no 6-character fragment of any of its forms', (_form, encode) => {
    const mixed = 'Qz7Hq2Zx9Lm4Vb8Nc1Pw_Rt5Ys3';
    const echoed = encode(mixed);
    const scrubbed = scrubSecret(`the provider said: ${echoed} is invalid`, mixed);
    expect(scrubbed).toContain('[redacted]');
    expect(scrubbed.startsWith('the provider said: ')).toBe(true);
    expect(scrubbed.endsWith(' is invalid')).toBe(true);
    const rest = scrubbed.replace(/\[redacted\]/g, ' ');
    for (const form of [mixed, Buffer.from(mixed).toString('hex'), Buffer.from(mixed).toString('base64')]) {
      const plain = form.toLowerCase().replace(/[^a-z0-9]/g, '');
      const restPlain = rest.toLowerCase().replace(/[^a-z0-9]/g, '');
      for (let i = 0; i + 8 <= plain.length; i++) expect(restPlain).not.toContain(plain.slice(i, i + 8));
    }
  });

  it('leaves ordinary text, hex ids and base64 that are not the key alone', () => {
    const text = 'request 0f1e2d3c4b5a69788796a5b4c3d2e1f0 failed; trace dGhpcyBpcyBub3QgYSBrZXk= (HTTP 500)';
    expect(scrubSecret(text, 'Qz7Hq2Zx9Lm4Vb8Nc1Pw_Rt5Ys3')).toBe(text);
  });

  it('is linear in the text: a megabyte of near-misses scrubs in well under a second of CPU', () => {
    const key = 'Qz7Hq2Zx9Lm4Vb8Nc1Pw_Rt5Ys3'.repeat(100);
    const text = 'Qz7Hq '.repeat(200_000);
    const started = process.cpuUsage();
    scrubSecret(text, key);
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1e6).toBeLessThan(2);
  });

  it('removes a short key only where it appears whole', () => {
    expect(scrubSecret('key abc1 rejected', 'abc1')).toBe('key [redacted] rejected');
  });
});

describe('cleanProviderText', () => {
  it('masks key-looking tokens of every provider, masked or not', () => {
    expect(cleanProviderText(`sk-proj-XYZ1****abcd, sk-ant-api03-QQQQ, ${GOOGLE_KEY_PREFIX}FAKEAAAA, gsk_BBBB, xai-CCCC`, only('other'))).toBe(
      '[redacted], [redacted], [redacted], [redacted], [redacted]',
    );
  });

  it('masks bearer tokens', () => {
    expect(cleanProviderText('got header Bearer abc.def.ghi', only('other'))).toBe('got header Bearer [redacted]');
  });

  it('removes every key of the request, not only the one the provider was called with', () => {
    const [own, judge] = ['Qz7Hq2Zx9Lm4Vb8Nc1Pw0Rt5Ys3', 'Hk2Rv8Jd5Wm3Tq9Lx6Fz4Nb7'];
    expect(cleanProviderText(`bad key ${own}; the judge's is ${judge}`, new SecretScrubber([own, judge]))).toBe("bad key [redacted]; the judge's is [redacted]");
  });

  it('collapses whitespace and truncates to the limit', () => {
    expect(cleanProviderText('a\n\n  b\tc', only(key))).toBe('a b c');
    const long = cleanProviderText('word '.repeat(200), only(key), 50);
    expect(long).toHaveLength(50);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('errorBodyMessage', () => {
  it.each([
    ['OpenAI', { error: { message: 'm', type: 't', param: null, code: 'c' } }],
    ['Anthropic', { type: 'error', error: { type: 'authentication_error', message: 'm' } }],
    ['Google', { error: { code: 400, message: 'm', status: 'INVALID_ARGUMENT' } }],
    ['Mistral', { object: 'error', message: 'm', type: 't', param: null, code: null }],
    ['Mistral 401', { detail: 'm' }],
    ['xAI', { code: 'Client specified an invalid argument', error: 'm' }],
  ])('reads %s error bodies', (_name, body) => {
    expect(errorBodyMessage(body)).toBe('m');
  });

  it('reads validation details, wrapped or not', () => {
    const detail = [{ loc: ['body', 'model'], msg: 'Field required', type: 'missing' }];
    expect(errorBodyMessage({ detail })).toBe('body.model: Field required');
    expect(errorBodyMessage({ object: 'error', message: { detail }, type: 'invalid_request_error' })).toBe(
      'body.model: Field required',
    );
  });

  it('has nothing to say about bodies it does not know', () => {
    expect(errorBodyMessage(undefined)).toBeUndefined();
    expect(errorBodyMessage({ status: 'bad' })).toBeUndefined();
  });
});

describe('retryDelayFromBody', () => {
  it('reads Google RetryInfo', () => {
    const body = { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '38.5s' }] } };
    expect(retryDelayFromBody(body)).toBe(38_500);
    expect(retryDelayFromBody({ error: { message: 'x' } })).toBeUndefined();
  });
});

describe('SecretScrubber.scrubJson (a tool call\'s arguments)', () => {
  it('redacts the key inside the strings and keeps the text JSON, even where a redaction would span a quote', () => {
    // The key runs on from a value into the next member's name: `sk-test-abcdef","ghijklmnop`.
    const args = JSON.stringify({ a: key.slice(0, 14), [key.slice(14, 24)]: 1, note: `use ${key.slice(20)} again` });
    const scrubbed = only(key).scrubJson(args);
    expect(JSON.parse(scrubbed)).toEqual({ a: '[redacted]', '[redacted]': 1, note: 'use [redacted] again' });
    // Scrubbed as plain text, the redaction takes the quotes and comma between the two fragments.
    expect(() => JSON.parse(only(key).scrub(args))).toThrow();
  });

  it('gives arguments without a key back exactly as written, and scrubs text that is not JSON as text', () => {
    const args = '{ "city" : "Rome" }';
    expect(only(key).scrubJson(args)).toBe(args);
    expect(only(key).scrubJson(`{"broken": ${key}`)).toBe('{"broken": [redacted]');
  });

  it('scrubs arguments nested deeper than a walk could go, as text', () => {
    const deep = `${'['.repeat(200_000)}"${key}"${']'.repeat(200_000)}`;
    const scrubbed = only(key).scrubJson(deep);
    expect(scrubbed).not.toContain(key.slice(8, 20));
  });
});
