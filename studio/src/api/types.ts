/** The API's persona shapes (the OpenAPI document's Persona), shared by the client and the pure modules that work on them. */

/** Free-form JSON object, stored and returned verbatim by the service. */
export type Attributes = Record<string, unknown>;

export interface Persona {
  id: string;
  name: string;
  attributes: Attributes;
}

export interface PersonaDraft {
  name: string;
  attributes: Attributes;
}
