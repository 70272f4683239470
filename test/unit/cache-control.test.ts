import { describe, expect, it } from 'vitest';
import { parseCacheControl } from '../../src/cache/cache-control.js';
import { DomainError } from '../../src/errors.js';

describe('Cache-Control on a refine request', () => {
  it('without the header the cache is not involved', () => {
    expect(parseCacheControl(undefined)).toBeUndefined();
  });

  it('max-age=N reads answers at most N seconds old and stores a fresh one', () => {
    expect(parseCacheControl('max-age=3600')).toEqual({ maxAgeMs: 3_600_000, write: true });
    expect(parseCacheControl('Max-Age="60"')).toEqual({ maxAgeMs: 60_000, write: true });
  });

  it('no-cache forces a fresh answer and refreshes the entry', () => {
    expect(parseCacheControl('no-cache')).toEqual({ maxAgeMs: undefined, write: true });
    expect(parseCacheControl('max-age=60, no-cache')).toEqual({ maxAgeMs: undefined, write: true });
  });

  it('no-store neither reads nor writes, whatever else is said', () => {
    expect(parseCacheControl('no-store')).toEqual({ maxAgeMs: undefined, write: false });
    expect(parseCacheControl('max-age=60, NO-STORE, no-cache')).toEqual({ maxAgeMs: undefined, write: false });
  });

  it('repeated max-age: the strictest wins; unknown directives are ignored', () => {
    expect(parseCacheControl('max-age=60, max-age=5, no-transform')).toEqual({ maxAgeMs: 5_000, write: true });
    expect(parseCacheControl('no-transform, max-stale=10')).toBeUndefined();
  });

  it.each(['max-age', 'max-age=', 'max-age=-1', 'max-age=1.5', 'max-age=abc', 'max-age=99999999999'])(
    'a malformed max-age (%s) is a 400 naming the header',
    (header) => {
      let thrown: unknown;
      try {
        parseCacheControl(header);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).status).toBe(400);
      expect((thrown as DomainError).message).toMatch(/^Cache-Control max-age must be a whole number of seconds/);
    },
  );
});
