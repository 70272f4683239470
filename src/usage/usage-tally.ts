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

/** The usage as an answer states it (`X-Usage`, a stream's `done.usage`): a token sum only while every answer reported it. */
export function reportedUsage(tally: UsageTally): { inputTokens?: number; outputTokens?: number; providerCalls: number } {
  return {
    ...(tally.inputKnown ? { inputTokens: tally.inputTokens } : {}),
    ...(tally.outputKnown ? { outputTokens: tally.outputTokens } : {}),
    providerCalls: tally.providerCalls,
  };
}

/** The `X-Usage` header value: `input_tokens=…, output_tokens=…, provider_calls=…`, unknown members left out. */
export function usageHeader(tally: UsageTally): string {
  const { inputTokens, outputTokens, providerCalls } = reportedUsage(tally);
  let header = '';
  if (inputTokens !== undefined) header += `input_tokens=${inputTokens}, `;
  if (outputTokens !== undefined) header += `output_tokens=${outputTokens}, `;
  return `${header}provider_calls=${providerCalls}`;
}
