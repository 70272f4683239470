/**
 * One attempt at a provider through its wire format: resolves with the
 * answer's text, or throws what the failure description understands
 * (provider-failure.ts).
 */
import type { Attempt } from './provider-call.js';
import type { Transport } from './wire/transport.js';
import type { WireFormat } from './wire/wire-format.js';

export interface Prompt {
  model: string;
  system: string;
  user: string;
}

/** A non-2xx answer. */
export class ProviderHttpError extends Error {
  constructor(readonly status: number, readonly headers: Record<string, string>, readonly body: string) {
    super(`HTTP ${status}`);
    this.name = 'ProviderHttpError';
  }
}

/** A 2xx answer we cannot use: not JSON, or JSON of another shape. */
export class UnusableAnswerError extends Error {
  constructor(readonly status: number, readonly reason: 'not_json' | 'unexpected_shape') {
    super(reason);
    this.name = 'UnusableAnswerError';
  }
}

export function wireAttempt(wire: WireFormat, transport: Transport, baseUrl: string, apiKey: string, prompt: Prompt): Attempt {
  const request = wire.request(apiKey, prompt.model, prompt.system, prompt.user);
  return async (signal) => {
    const answer = await transport(baseUrl, request, signal);
    if (answer.status < 200 || answer.status >= 300) throw new ProviderHttpError(answer.status, answer.headers, answer.body);
    let json: unknown;
    try {
      json = JSON.parse(answer.body);
    } catch {
      throw new UnusableAnswerError(answer.status, 'not_json');
    }
    const text = wire.text(json);
    if (text === undefined) throw new UnusableAnswerError(answer.status, 'unexpected_shape');
    return text;
  };
}
