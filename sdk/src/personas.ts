/** The persona resource: /v1/personas. */
import { PersonaLabelsApi, PersonaVersions } from './persona-history.js';
import { PersonaSamples } from './persona-samples.js';
import { searchOf } from './next-page.js';
import { ifMatchHeader, personaPath as pathOf, withEtag } from './persona-paths.js';
import type { CallOptions, PostOptions, Transport } from './transport.js';
import type { CreatePersonaInput, DraftPersonaInput, Persona, PersonaDraft, PersonaVariant, PersonaVariantQuery, PersonaWithEtag, UpdatePersonaInput } from './types.js';

/** `idempotencyKey` applies to the writes that are not idempotent by themselves (update, delete, restore, label removal). */
export interface ConditionalOptions extends PostOptions {
  /** The ETag you last read (`persona.etag`); the server answers 412 if the persona changed since. */
  ifMatch?: string;
}

export class Personas {
  /** Immutable versions: list, get, restore. */
  readonly versions: PersonaVersions;
  /** Movable labels (`production` → 3): get, set, delete, and their policies. */
  readonly labels: PersonaLabelsApi;
  /** The persona's evaluation samples: get, replace. */
  readonly samples: PersonaSamples;

  constructor(private readonly transport: Transport) {
    this.versions = new PersonaVersions(transport);
    this.labels = new PersonaLabelsApi(transport);
    this.samples = new PersonaSamples(transport);
  }

  async create(input: CreatePersonaInput, options?: PostOptions): Promise<PersonaWithEtag> {
    const { body, headers } = await this.transport.call<Persona>({ method: 'POST', path: '/personas', body: input }, options);
    return withEtag(body, headers);
  }

  /**
   * A persona drafted from 1–20 sample texts by `provider` (scope `personas:write`), stored nowhere:
   * its `attributes`, a short quote from a sample per attribute as `evidence`, and `warnings` for
   * what of the model's answer was dropped. `create` takes it as it is. Spends the key's budgets
   * as a refine does; like a refine, retried on 429, 502, 503 and 504 unless `maxRetries: 0`.
   */
  async draft(input: DraftPersonaInput, options?: CallOptions): Promise<PersonaDraft> {
    return (await this.transport.call<PersonaDraft>({ method: 'POST', path: '/personas/draft', body: input }, options)).body;
  }

  /**
   * The variant `name` merged over the persona's attributes (scope `personas:read`): the attributes a
   * refine, check or chat completion naming it reads. The newest version's unless `personaVersion`
   * or `personaLabel` pins one; NotFoundError when the persona, the version or the variant does not exist.
   */
  async variant(id: string, name: string, query: PersonaVariantQuery = {}, options?: CallOptions): Promise<PersonaVariant> {
    const path = `${pathOf(id)}/variants/${encodeURIComponent(name)}${searchOf({ personaVersion: query.personaVersion, personaLabel: query.personaLabel })}`;
    return (await this.transport.call<PersonaVariant>({ method: 'GET', path }, options)).body;
  }

  /** Every persona of the account, oldest first. */
  async list(options?: CallOptions): Promise<Persona[]> {
    return (await this.transport.call<Persona[]>({ method: 'GET', path: '/personas', answer: 'array' }, options)).body;
  }

  async get(id: string, options?: CallOptions): Promise<PersonaWithEtag> {
    const { body, headers } = await this.transport.call<Persona>({ method: 'GET', path: pathOf(id) }, options);
    return withEtag(body, headers);
  }

  /** With `ifMatch`, a concurrent change makes this throw PreconditionFailedError (412). */
  async update(id: string, patch: UpdatePersonaInput, options: ConditionalOptions = {}): Promise<PersonaWithEtag> {
    const { ifMatch, ...callOptions } = options;
    const { body, headers } = await this.transport.call<Persona>(
      { method: 'PATCH', path: pathOf(id), body: patch, headers: ifMatchHeader(ifMatch) },
      callOptions,
    );
    return withEtag(body, headers);
  }

  async delete(id: string, options: ConditionalOptions = {}): Promise<void> {
    const { ifMatch, ...callOptions } = options;
    await this.transport.call<undefined>({ method: 'DELETE', path: pathOf(id), headers: ifMatchHeader(ifMatch), answer: 'none' }, callOptions);
  }
}
