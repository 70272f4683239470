/** Persona labels: their names' bounds and shape (docs/versions.md). */

export const LABEL_MAX_LENGTH = 40;
/** The label every persona has without setting it: its newest version. */
export const LATEST_LABEL = 'latest';

/** Each label and the version it points at; `latest` is implicit and not listed. */
export type PersonaLabels = Record<string, number>;
