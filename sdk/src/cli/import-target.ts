/**
 * Which persona on the server a persona file describes: the one with its id if it has one, else
 * the one with its name. Pure, with no imports: the studio's import uses it too.
 */

/**
 * A file with an id describes that persona only: if it is not on the server, matching another by
 * name would overwrite the wrong persona. Returns the persona, undefined (create it), or why not.
 */
export function targetOf<P extends { id: string; name: string }>(desired: { id?: string; name: string }, server: readonly P[]): P | undefined | string {
  if (desired.id !== undefined) {
    return (
      server.find((persona) => persona.id === desired.id) ??
      `id ${desired.id} is not on the server (deleted, or exported from another server or account); remove "id" to create it anew`
    );
  }
  const named = server.filter((persona) => persona.name === desired.name);
  if (named.length > 1) return `${named.length} personas are named ${JSON.stringify(desired.name)}; add the "id" of the one you mean`;
  return named[0];
}
