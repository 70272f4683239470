/** The service's paging: a `Link: <…?cursor=…>; rel="next"` header while there is a next page. */

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
