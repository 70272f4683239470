/** Persona labels: their names' bounds and shape (docs/versions.md). */

export const LABEL_MAX_LENGTH = 40;
/** The label every persona has without setting it: its newest version. */
export const LATEST_LABEL = 'latest';
/** Not a label name: `GET …/labels` answers each label's policy under this member. */
export const POLICIES_MEMBER = 'policies';

/** Each label and the version it points at; `latest` is implicit and not listed. */
export type PersonaLabels = Record<string, number>;
