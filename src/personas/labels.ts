/** Persona labels: their names' bounds and shape (docs/versions.md). */
import { DomainError } from '../errors.js';

export const LABEL_MAX_LENGTH = 40;
/** The label every persona has without setting it: its newest version. */
export const LATEST_LABEL = 'latest';
/**
 * The caller's right to move or remove protected labels (`labels:protected`), and who hears that
 * it was used: an answer that depended on it is replayed (Idempotency-Key) only to a key that has it.
 */
export interface ProtectedLabelRight {
  granted: boolean;
  used(): void;
}

/** Protected by default, for personas created since label policies exist. */
export const PROTECTED_BY_DEFAULT = new Set(['production']);

/** A label is protected when its policy says so, or when it has none and is protected by default. */
export const isProtected = (label: string, storedProtection: number | null | undefined): boolean =>
  storedProtection === null || storedProtection === undefined ? PROTECTED_BY_DEFAULT.has(label) : storedProtection === 1;

/** Each label and the version it points at; `latest` is implicit and not listed. */
export type PersonaLabels = Record<string, number>;

/** A label move its policy refused: a 409 whose message says what the move needs (a label.refused webhook event). */
export class LabelRefused extends DomainError {
  constructor(
    readonly label: string,
    readonly version: number,
    message: string,
  ) {
    super('conflict', message);
    this.name = 'LabelRefused';
  }
}
