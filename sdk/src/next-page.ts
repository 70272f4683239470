/** The service's paging: a `Link: <…?cursor=…>; rel="next"` header while there is a next page. */
import { PersonaRefineError } from './errors.js';
import type { CallOptions, Transport } from './transport.js';

/** The cursor of the next page, or undefined on the last one. */
export function nextCursorOf(headers: Headers): string | undefined {
  const next = /<[^>]*[?&]cursor=([^&>]+)[^>]*>;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1];
  return next === undefined ? undefined : decodeURIComponent(next);
}

/** `?a=1&b=2`, or '' without members (not `params.size`: Node before 18.16 and older browsers lack it). */
export function searchOf(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return params.toString() === '' ? '' : `?${params}`;
}

/**
 * Every item of a paged list, read a page at a time as the loop asks for more (leaving the loop
 * reads no further page); `pathOf` is the path of the page at `cursor` (undefined: the first).
 */
export async function* pagedItems<T>(transport: Transport, pathOf: (cursor: string | undefined) => string, options?: CallOptions): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  for (let cursor: string | undefined; ; ) {
    const { body, headers } = await transport.call<T[]>({ method: 'GET', path: pathOf(cursor), answer: 'array' }, options);
    yield* body;
    cursor = nextCursorOf(headers);
    if (cursor === undefined) return;
    // A server whose next page pointed back would keep this loop going forever.
    if (seen.has(cursor)) {
      throw new PersonaRefineError({ kind: 'http', status: 200, message: 'the list\'s pages link back to one already read', requestId: headers.get('x-request-id') ?? undefined });
    }
    seen.add(cursor);
  }
}

/** Every item of a paged list, all pages read. */
export async function allPages<T>(transport: Transport, pathOf: (cursor: string | undefined) => string, options?: CallOptions): Promise<T[]> {
  const all: T[] = [];
  for await (const item of pagedItems<T>(transport, pathOf, options)) all.push(item);
  return all;
}
