/**
 * The refine use case: persona → prompt → the caller's provider → cleaned text.
 * Validation that needs no I/O (the provider id) comes first, then the persona
 * lookup; nothing reaches a provider unless both pass.
 */
import { invalidRequest } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { PersonaService } from '../personas/persona-service.js';
import { ClientAbortedError, type ProviderRegistry } from '../providers/index.js';
import type { RefineBody } from '../schemas/refine.js';
import { cleanModelOutput } from './output-cleanup.js';
import { buildRefinePrompt } from './prompt.js';

export interface RefineResult {
  response: string;
  /** Time spent waiting on the provider, retries included, for Server-Timing. */
  providerMs: number;
}

export class RefineService {
  constructor(
    private readonly personas: PersonaService,
    private readonly providers: ProviderRegistry,
    private readonly timeoutMs: number,
    private readonly metrics: Metrics,
  ) {}

  async refine(accountId: string, body: RefineBody, signal: AbortSignal): Promise<RefineResult> {
    if (!this.providers.has(body.provider)) {
      throw invalidRequest(`unknown provider "${body.provider.slice(0, 64)}"; supported: ${this.providers.ids().join(', ')}`);
    }
    const persona = await this.personas.getDefinition(accountId, body.personaId);
    const prompt = buildRefinePrompt(persona, body.content);
    const deadline = Date.now() + this.timeoutMs;
    const started = performance.now();
    let outcome = 'ok';
    this.metrics.refinesInFlight.inc();
    try {
      const answer = await this.providers.generate(
        body.provider,
        { apiKey: body.providerApiKey, model: body.model, system: prompt.system, user: prompt.user, signal },
        { deadline },
      );
      return { response: cleanModelOutput(answer.text), providerMs: performance.now() - started };
    } catch (error) {
      outcome = error instanceof ClientAbortedError ? 'client_aborted' : ((error as { code?: string }).code ?? 'unknown');
      throw error;
    } finally {
      this.metrics.refinesInFlight.dec();
      const labels = { provider: body.provider, outcome };
      this.metrics.providerCalls.inc(labels);
      this.metrics.providerDuration.observe(labels, (performance.now() - started) / 1000);
    }
  }
}
