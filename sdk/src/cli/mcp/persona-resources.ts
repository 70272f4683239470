/** Each persona as the resource `persona://<id>`: its JSON, for a host that attaches context rather than calling tools. */
import type { PersonaRefine } from '../../index.js';

const SCHEME = 'persona://';
const MIME_TYPE = 'application/json';

export const personaTemplate = {
  uriTemplate: `${SCHEME}{id}`,
  name: 'persona',
  title: 'A persona',
  description: 'A persona by id: its name and attributes, as JSON',
  mimeType: MIME_TYPE,
};

export const personaUri = (id: string) => `${SCHEME}${encodeURIComponent(id)}`;

/** The persona id a `persona://<id>` names; undefined for any other URI. */
export function personaIdOf(uri: string): string | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const encoded = uri.slice(SCHEME.length);
  if (encoded === '' || encoded.includes('/')) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

export async function listPersonaResources(client: PersonaRefine, signal: AbortSignal) {
  const personas = await client.personas.list({ signal });
  return personas.map(({ id, name }) => ({ uri: personaUri(id), name, description: `The persona "${name}": its attributes, as JSON`, mimeType: MIME_TYPE }));
}

/** The contents of `uri`, which names the persona `id`. */
export async function readPersonaResource(client: PersonaRefine, uri: string, id: string, signal: AbortSignal) {
  const { name, attributes } = await client.personas.get(id, { signal });
  return { uri, mimeType: MIME_TYPE, text: JSON.stringify({ id, name, attributes }, null, 2) };
}
