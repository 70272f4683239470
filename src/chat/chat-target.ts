/**
 * Who a chat completion is for and who answers it, read from OpenAI's own members: the persona
 * reference (`<id>`, `<id>@<label>`, `<id>:<version>`) and `model` as `<provider>/<model>`.
 */
import { invalidRequest } from '../errors.js';
import type { PersonaPin } from '../personas/persona-history.js';

export interface PersonaReference extends PersonaPin {
  personaId: string;
}

const VERSION_SUFFIX = /^(.+):([1-9][0-9]{0,8})$/;

/** The header's name is the one a caller can set from any OpenAI client (default headers), so errors name it. */
export function personaReference(value: string | undefined): PersonaReference {
  if (value === undefined || value.trim() === '') {
    throw invalidRequest('the persona is missing: send its id in the X-Persona header (or a top-level "persona" member): <personaId>, <personaId>@<label> or <personaId>:<version>');
  }
  const at = value.lastIndexOf('@');
  if (at > 0) return { personaId: value.slice(0, at), personaLabel: value.slice(at + 1) };
  const versioned = VERSION_SUFFIX.exec(value);
  if (versioned) return { personaId: versioned[1]!, personaVersion: Number(versioned[2]) };
  return { personaId: value };
}

export interface ModelTarget {
  provider: string;
  /** Undefined for the provider's default model. */
  model: string | undefined;
}

/**
 * `model` split at its first slash: the rest may hold slashes of its own
 * (`localllm/meta/llama-3-8b`), as an operator endpoint's model ids do.
 */
export function modelTarget(model: string): ModelTarget {
  const slash = model.indexOf('/');
  if (slash === -1) return { provider: model, model: undefined };
  const rest = model.slice(slash + 1);
  return { provider: model.slice(0, slash), model: rest === '' ? undefined : rest };
}
