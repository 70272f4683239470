/** Views live in the URL fragment, so the service serves one index.html and Back works. */
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { view: 'home' }
  | { view: 'persona'; id: string }
  | { view: 'history'; id: string }
  | { view: 'evals'; id: string }
  | { view: 'quality'; id: string }
  | { view: 'new' }
  | { view: 'draft' }
  | { view: 'compare' }
  | { view: 'keys' }
  | { view: 'webhooks' }
  | { view: 'webhook'; id: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  if (path === 'personas/new') return { view: 'new' };
  // Before `personas/<id>`: the service's ids never read `draft`.
  if (path === 'personas/draft') return { view: 'draft' };
  if (path === 'compare') return { view: 'compare' };
  if (path === 'keys') return { view: 'keys' };
  if (path === 'webhooks') return { view: 'webhooks' };
  const webhook = /^webhooks\/(.+)$/.exec(path);
  if (webhook?.[1]) return { view: 'webhook', id: decodeURIComponent(webhook[1]) };
  const evals = /^personas\/(.+)\/evals$/.exec(path);
  if (evals?.[1]) return { view: 'evals', id: decodeURIComponent(evals[1]) };
  const quality = /^personas\/(.+)\/quality$/.exec(path);
  if (quality?.[1]) return { view: 'quality', id: decodeURIComponent(quality[1]) };
  const history = /^personas\/(.+)\/history$/.exec(path);
  if (history?.[1]) return { view: 'history', id: decodeURIComponent(history[1]) };
  const persona = /^personas\/(.+)$/.exec(path);
  if (persona?.[1]) return { view: 'persona', id: decodeURIComponent(persona[1]) };
  return { view: 'home' };
}

export const personaHref = (id: string) => `#/personas/${encodeURIComponent(id)}`;
export const historyHref = (id: string) => `#/personas/${encodeURIComponent(id)}/history`;
export const evalsHref = (id: string) => `#/personas/${encodeURIComponent(id)}/evals`;
export const qualityHref = (id: string) => `#/personas/${encodeURIComponent(id)}/quality`;
export const NEW_PERSONA_HREF = '#/personas/new';
export const DRAFT_PERSONA_HREF = '#/personas/draft';
export const COMPARE_HREF = '#/compare';
export const KEYS_HREF = '#/keys';
export const WEBHOOKS_HREF = '#/webhooks';
export const webhookHref = (id: string) => `#/webhooks/${encodeURIComponent(id)}`;
export const HOME_HREF = '#/';

export function navigate(href: string): void {
  window.location.hash = href;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    // Effects run after the first paint: an address that changed since the first render fired its
    // hashchange before anyone listened (a link followed right after sign-in), so read it again.
    update();
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
