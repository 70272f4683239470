/** A persona's evaluation samples: /v1/personas/{id}/samples. They belong to the persona, not to a version. */
import type { ConditionalOptions } from './personas.js';
import { ifMatchHeader, personaPath } from './persona-paths.js';
import type { CallOptions, Transport } from './transport.js';
import type { EvalSampleInput, EvalSampleSet } from './types.js';

const withEtag = (set: Omit<EvalSampleSet, 'etag'>, headers: Headers): EvalSampleSet =>
  Object.defineProperty(set, 'etag', { value: headers.get('etag') ?? '', enumerable: false }) as EvalSampleSet;

export class PersonaSamples {
  constructor(private readonly transport: Transport) {}

  /** `{ samples }` with the set's own `etag` (`"0"` before the first replace). */
  async get(id: string, options?: CallOptions): Promise<EvalSampleSet> {
    const { body, headers } = await this.transport.call<Omit<EvalSampleSet, 'etag'>>({ method: 'GET', path: `${personaPath(id)}/samples` }, options);
    return withEtag(body, headers);
  }

  /**
   * Replaces the whole set (at most 200). A sample sent unchanged keeps its id; a changed or new
   * one gets a new id. With `ifMatch` (the set's `etag`), a concurrent change is a 412.
   */
  async replace(id: string, samples: EvalSampleInput[], options: ConditionalOptions = {}): Promise<EvalSampleSet> {
    const { ifMatch, ...callOptions } = options;
    const { body, headers } = await this.transport.call<Omit<EvalSampleSet, 'etag'>>(
      { method: 'PUT', path: `${personaPath(id)}/samples`, body: { samples }, headers: ifMatchHeader(ifMatch) },
      callOptions,
    );
    return withEtag(body, headers);
  }
}
