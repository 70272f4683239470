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

/** One immutable version of a persona, as GET /v1/personas/{id}/versions lists it. */
export interface PersonaVersion {
  version: number;
  name: string;
  attributes: Attributes;
  createdAt: string;
  /** Id of the API key that made it; null for versions from before history was kept. */
  createdBy: string | null;
}

/** Label → version, e.g. { production: 3 }. */
export type PersonaLabels = Record<string, number>;
