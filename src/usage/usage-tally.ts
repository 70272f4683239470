/**
 * What a refine cost: provider calls made and the tokens the providers said
 * they used. The `X-Usage` header states a token sum only while every answer
 * reported it: one answer without it makes the sum unknown, and an unknown
 * sum is left out rather than guessed. The counters (database, Prometheus)
 * add what was reported. Failed attempts (429, 5xx, broken connections) are
 * calls but bill no tokens.
 */

/** Tokens one provider answer reported; a member is absent when the provider did not say. */
export interface CallUsage {
  inputTokens?: number;
  outputTokens?: number;
}

export class UsageTally {
  providerCalls = 0;
  /** Sums of what was reported. */
  inputTokens = 0;
  outputTokens = 0;
  /** False once an answer arrived without that member. */
  inputKnown = true;
  outputKnown = true;

  /** An answered call and what it reported. */
  addAnswer(usage: CallUsage | undefined): void {
    this.providerCalls++;
    if (usage?.inputTokens === undefined) this.inputKnown = false;
    else this.inputTokens += usage.inputTokens;
    if (usage?.outputTokens === undefined) this.outputKnown = false;
    else this.outputTokens += usage.outputTokens;
  }

  /** Calls that ended without an answer (they bill nothing). */
  addFailedCalls(count: number): void {
    this.providerCalls += count;
  }

  addTally(other: UsageTally): void {
    this.providerCalls += other.providerCalls;
    this.inputTokens += other.inputTokens;
    this.outputTokens += other.outputTokens;
    this.inputKnown &&= other.inputKnown;
    this.outputKnown &&= other.outputKnown;
  }
}

/** The `X-Usage` header value: `input_tokens=…, output_tokens=…, provider_calls=…`, unknown members left out. */
export function usageHeader(tally: UsageTally): string {
  let header = '';
  if (tally.inputKnown) header += `input_tokens=${tally.inputTokens}, `;
  if (tally.outputKnown) header += `output_tokens=${tally.outputTokens}, `;
  return `${header}provider_calls=${tally.providerCalls}`;
}
