/** What the persona resources share: their path, the If-Match header, and the ETag on results. */
import type { Persona, PersonaWithEtag } from './types.js';

export function withEtag(persona: Persona, headers: Headers): PersonaWithEtag {
  return Object.defineProperty(persona, 'etag', { value: headers.get('etag') ?? '', enumerable: false }) as PersonaWithEtag;
}

export const personaPath = (id: string) => `/personas/${encodeURIComponent(id)}`;
export const ifMatchHeader = (ifMatch: string | undefined) => (ifMatch === undefined ? undefined : { 'if-match': ifMatch });
