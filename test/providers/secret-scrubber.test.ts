import { describe, expect, it } from 'vitest';
import { errorBodyMessage, retryDelayFromBody } from '../../src/providers/provider-error-body.js';
import { cleanProviderText, scrubSecret } from '../../src/providers/secret-scrubber.js';

const key = 'sk-test-abcdefghijklmnopqrstuvwxyz';

describe('scrubSecret', () => {
  it('removes the whole key', () => {
    expect(scrubSecret(`bad key ${key}!`, key)).toBe('bad key [redacted]!');
  });

  it('removes every fragment of 6 characters or more, and keeps shorter ones', () => {
    expect(scrubSecret('hint: sk-test-ab…wxyz and klmnop', key)).toBe('hint: [redacted]…wxyz and [redacted]');
    expect(scrubSecret('abcde', key)).toBe('abcde');
  });

  it('removes a short key only where it appears whole', () => {
    expect(scrubSecret('key abc1 rejected', 'abc1')).toBe('key [redacted] rejected');
  });
});

describe('cleanProviderText', () => {
  it('masks key-looking tokens of every provider, masked or not', () => {
    expect(cleanProviderText('sk-proj-XYZ1****abcd, sk-ant-api03-QQQQ, AIzaFAKEAAAA, gsk_BBBB, xai-CCCC', 'other')).toBe(
      '[redacted], [redacted], [redacted], [redacted], [redacted]',
    );
  });

  it('masks bearer tokens', () => {
    expect(cleanProviderText('got header Bearer abc.def.ghi', 'other')).toBe('got header Bearer [redacted]');
  });

  it('collapses whitespace and truncates to the limit', () => {
    expect(cleanProviderText('a\n\n  b\tc', key)).toBe('a b c');
    const long = cleanProviderText('word '.repeat(200), key, 50);
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
