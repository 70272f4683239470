/**
 * The refine use case: persona → prompt → the caller's provider → cleaned text
 * → the persona's deterministic rules. Validation that needs no I/O (the
 * provider id) comes first, then the persona lookup; nothing reaches a
 * provider unless both pass.
 */
import { ClientAbortedError, invalidRequest } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { ProviderRegistry } from '../providers/index.js';
import {
  enforce, hasRules, needsModelRepair, preservedOriginal, repairInstructions,
  type PreservedOriginal, type RuleViolation,
} from '../rules/index.js';
import type { ProviderInfo } from '../schemas/providers.js';
import type { RefineBody } from '../schemas/refine.js';
import { cleanModelOutput } from './output-cleanup.js';
import type { CompiledPersona, CompiledPersonas } from './compiled-personas.js';
import { buildUserMessage } from './prompt.js';
import { type RefineStream, streamThroughProvider, wholeText } from './refine-stream.js';
import { noTracing, traced, type Tracer } from '../tracing/tracer.js';

/** Applies only the persona's deterministic rules: no network, no model, no key. */
export const RULES_PROVIDER = 'rules';

export interface RefineResult {
  response: string;
  /** Time spent waiting on the provider, retries and repair included, for Server-Timing. */
  providerMs: number;
  /** Rule violations neither the fixes nor the repair call could remove. */
  violations: RuleViolation[];
  /** The persona version used (X-Persona-Version). */
  personaVersion: number;
}

export class RefineService {
  constructor(
    private readonly personas: CompiledPersonas,
    private readonly providers: ProviderRegistry,
    private readonly timeoutMs: number,
    private readonly metrics: Metrics,
    private readonly tracer: Tracer = noTracing,
  ) {}

  /** Every provider a refine may name: the registry's, then `rules`. */
  listProviders(): ProviderInfo[] {
    return [
      ...this.providers.describe().map((provider) => ({ ...provider, requiresKey: true })),
      { id: RULES_PROVIDER, name: 'Rules only (no model)', defaultModel: null, requiresKey: false },
    ];
  }

  providerIds(): string[] {
    return [...this.providers.ids(), RULES_PROVIDER];
  }

  async refine(accountId: string, body: RefineBody, signal: AbortSignal): Promise<RefineResult> {
    const persona = await this.persona(accountId, body);
    if (body.provider === RULES_PROVIDER) {
      const { text, remaining } = this.enforce(persona, body.content, originalFor(persona, body.content));
      return { response: text, providerMs: 0, violations: remaining, personaVersion: persona.version };
    }
    return this.throughProvider(persona, this.withKey(body), signal);
  }

  /**
   * The same refine, streamed (refine-stream.ts). Resolves once the first text is there;
   * everything that fails before that rejects exactly as `refine` does.
   */
  async refineStream(accountId: string, body: RefineBody, signal: AbortSignal): Promise<RefineStream> {
    const persona = await this.persona(accountId, body);
    if (body.provider === RULES_PROVIDER) {
      const { text, remaining } = this.enforce(persona, body.content, originalFor(persona, body.content));
      return { personaVersion: persona.version, pieces: wholeText({ response: text, violations: remaining, usage: undefined }) };
    }
    const dependencies = { providers: this.providers, metrics: this.metrics, timeoutMs: this.timeoutMs };
    return streamThroughProvider(dependencies, persona, this.withKey(body), originalFor(persona, body.content), signal);
  }

  /** Validation that needs no I/O first (the provider id), then the persona lookup. */
  private async persona(accountId: string, body: RefineBody): Promise<CompiledPersona> {
    if (body.provider !== RULES_PROVIDER && !this.providers.has(body.provider)) {
      throw invalidRequest(`unknown provider "${body.provider.slice(0, 64)}"; supported: ${this.providerIds().join(', ')}`);
    }
    const loading = this.tracer.start('persona.load').set('persona_refine.persona_id', body.personaId);
    return traced(loading, this.personas.get(accountId, body.personaId, body));
  }

  private withKey(body: RefineBody): RefineBody & { providerApiKey: string } {
    if (body.providerApiKey === undefined) {
      throw invalidRequest(`providerApiKey is required for provider "${body.provider}"`);
    }
    return { ...body, providerApiKey: body.providerApiKey };
  }

  private async throughProvider(
    persona: CompiledPersona,
    body: RefineBody & { providerApiKey: string },
    signal: AbortSignal,
  ): Promise<RefineResult> {
    const deadline = Date.now() + this.timeoutMs;
    const started = performance.now();
    const ask = async (user: string) =>
      cleanModelOutput(
        (await this.providers.generate(
          body.provider,
          { apiKey: body.providerApiKey, model: body.model, system: persona.system, user, signal },
          { deadline, timeoutMs: this.timeoutMs },
        )).text,
      );

    let outcome = 'ok';
    this.metrics.refinesInFlight.inc();
    try {
      const answer = await ask(buildUserMessage(body.content));
      if (!hasRules(persona.rules)) return { response: answer, providerMs: performance.now() - started, violations: [], personaVersion: persona.version };
      const original = originalFor(persona, body.content);
      let result = this.enforce(persona, answer, original);
      if (needsModelRepair(result.remaining)) {
        const repairing = this.tracer.start('repair').set('persona_refine.rules.violations', result.remaining.length);
        const first = result;
        result = await traced(repairing, this.tracer.within(repairing, () => this.repair(persona, first, original, ask)));
      }
      return { response: result.text, providerMs: performance.now() - started, violations: result.remaining, personaVersion: persona.version };
    } catch (error) {
      outcome = (error as { code?: string }).code ?? 'unknown';
      throw error;
    } finally {
      this.metrics.refinesInFlight.dec();
      const labels = { provider: body.provider, outcome };
      this.metrics.providerCalls.inc(labels);
      this.metrics.providerDuration.observe(labels, (performance.now() - started) / 1000);
    }
  }

  /** The persona's deterministic rules, as one span with the count of what they could not fix. */
  private enforce(persona: CompiledPersona, text: string, original: PreservedOriginal | undefined): ReturnType<typeof enforce> {
    const span = this.tracer.start('rules');
    const result = enforce(persona.rules, text, original);
    span.set('persona_refine.rules.violations', result.remaining.length).end();
    return result;
  }

  /**
   * One repair call, inside the same deadline, for what only the model can fix
   * (banned phrases, length, lost items). It is best effort: if it fails or does
   * worse, the first answer stands and its violations are reported.
   */
  private async repair(
    persona: CompiledPersona,
    first: ReturnType<typeof enforce>,
    original: PreservedOriginal | undefined,
    ask: (user: string) => Promise<string>,
  ): Promise<ReturnType<typeof enforce>> {
    const instructions = repairInstructions(first.remaining, first.text, original);
    try {
      const second = this.enforce(persona, await ask(`${instructions}\n\n${buildUserMessage(first.text)}`), original);
      return second.remaining.length <= first.remaining.length ? second : first;
    } catch (error) {
      if (error instanceof ClientAbortedError) throw error;
      return first;
    }
  }
}

/** The content's items, found once per refine and compared with each answer. */
function originalFor(persona: CompiledPersona, content: string): PreservedOriginal | undefined {
  return persona.rules.preserve ? preservedOriginal(content) : undefined;
}
