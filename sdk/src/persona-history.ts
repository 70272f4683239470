/** A persona's versions, labels and their policies: /v1/personas/{id}/versions, /labels and /label-policies. */
import type { ConditionalOptions } from './personas.js';
import type { CallOptions, Transport } from './transport.js';
import type { LabelPolicies, LabelPolicy, LabelPolicyInput, Persona, PersonaLabels, PersonaVersion, PersonaWithEtag } from './types.js';
import { ifMatchHeader, personaPath, withEtag } from './persona-paths.js';

export class PersonaVersions {
  constructor(private readonly transport: Transport) {}

  /** Every version of the persona, oldest first. */
  async list(id: string, options?: CallOptions): Promise<PersonaVersion[]> {
    return (await this.transport.call<PersonaVersion[]>({ method: 'GET', path: `${personaPath(id)}/versions`, answer: 'array' }, options)).body;
  }

  async get(id: string, version: number, options?: CallOptions): Promise<PersonaVersion> {
    return (await this.transport.call<PersonaVersion>({ method: 'GET', path: `${personaPath(id)}/versions/${version}` }, options)).body;
  }

  /** That version's content becomes the newest version (a new number); returns the persona with its new ETag. */
  async restore(id: string, version: number, options: ConditionalOptions = {}): Promise<PersonaWithEtag> {
    const { ifMatch, ...callOptions } = options;
    const { body, headers } = await this.transport.call<Persona>(
      { method: 'POST', path: `${personaPath(id)}/versions/${version}/restore`, headers: ifMatchHeader(ifMatch) },
      callOptions,
    );
    return withEtag(body, headers);
  }
}

export class PersonaLabelsApi {
  constructor(private readonly transport: Transport) {}

  /** `{ production: 3, staging: 5 }`: each label and the version it points at; `latest` is implicit and not listed. */
  async get(id: string, options?: CallOptions): Promise<PersonaLabels> {
    return (await this.transport.call<PersonaLabels>({ method: 'GET', path: `${personaPath(id)}/labels` }, options)).body;
  }

  /** Points `label` at `version` (creating or moving it); returns all labels. */
  async set(id: string, label: string, version: number, options: ConditionalOptions = {}): Promise<PersonaLabels> {
    const { ifMatch, ...callOptions } = options;
    const path = `${personaPath(id)}/labels/${encodeURIComponent(label)}`;
    return (await this.transport.call<PersonaLabels>({ method: 'PUT', path, body: { version }, headers: ifMatchHeader(ifMatch) }, callOptions)).body;
  }

  async delete(id: string, label: string, options: ConditionalOptions = {}): Promise<void> {
    const { ifMatch, ...callOptions } = options;
    const path = `${personaPath(id)}/labels/${encodeURIComponent(label)}`;
    await this.transport.call<undefined>({ method: 'DELETE', path, headers: ifMatchHeader(ifMatch), answer: 'none' }, callOptions);
  }

  /**
   * The label's policy: whether moving it needs `labels:protected` (`production` does by default),
   * and the evaluation a move to a version needs (`minScore`, `minPassRate`, `maxAgeDays`).
   */
  async getPolicy(id: string, label: string, options?: CallOptions): Promise<LabelPolicy> {
    return (await this.transport.call<LabelPolicy>({ method: 'GET', path: `${personaPath(id)}/labels/${encodeURIComponent(label)}/policy` }, options)).body;
  }

  /**
   * Every label's policy at once, keyed by label, each as `getPolicy` answers it: every label set, every
   * label that has a policy, and `production` (protected by default).
   */
  async listPolicies(id: string, options?: CallOptions): Promise<LabelPolicies> {
    return (await this.transport.call<LabelPolicies>({ method: 'GET', path: `${personaPath(id)}/label-policies` }, options)).body;
  }

  /**
   * Sets the policy (scope `labels:protected`), e.g. `{ protected: true, minScore: 80, minPassRate: 0.9, maxAgeDays: 7 }`:
   * a move of a gated label to a version without a completed run of it that meets the bars is a 409.
   */
  async setPolicy(id: string, label: string, policy: LabelPolicyInput, options?: CallOptions): Promise<LabelPolicy> {
    const path = `${personaPath(id)}/labels/${encodeURIComponent(label)}/policy`;
    return (await this.transport.call<LabelPolicy>({ method: 'PUT', path, body: policy }, options)).body;
  }

  /** Back to the default policy (`production` protected, other labels not). */
  async deletePolicy(id: string, label: string, options?: CallOptions): Promise<void> {
    const path = `${personaPath(id)}/labels/${encodeURIComponent(label)}/policy`;
    await this.transport.call<undefined>({ method: 'DELETE', path, answer: 'none' }, options);
  }
}
