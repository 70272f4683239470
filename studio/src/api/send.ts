/**
 * The client's one way out (StudioApi's), handed to the API modules beside it, so a 401 ends the
 * session whichever module's request met it.
 */
export type Send = (method: string, path: string, options?: { body?: unknown }) => Promise<Response>;
