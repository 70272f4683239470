/** Reads `X-Usage: input_tokens=412, output_tokens=37, provider_calls=1`; a member the provider did not report is absent. */

export interface RefineUsage {
  inputTokens?: number;
  outputTokens?: number;
  providerCalls?: number;
}

const NAMES: Record<string, keyof RefineUsage> = { input_tokens: 'inputTokens', output_tokens: 'outputTokens', provider_calls: 'providerCalls' };

export function parseUsage(header: string | null): RefineUsage {
  const usage: RefineUsage = {};
  for (const member of (header ?? '').split(',')) {
    const [name, value] = member.split('=').map((part) => part.trim());
    const field = NAMES[name ?? ''];
    if (field && value !== undefined && /^\d+$/.test(value)) usage[field] = Number(value);
  }
  return usage;
}

/** `412 input + 37 output tokens, 1 provider call`, leaving out what was not reported. */
export function describeUsage(usage: RefineUsage): string {
  const parts: string[] = [];
  if (usage.inputTokens !== undefined && usage.outputTokens !== undefined) parts.push(`${usage.inputTokens} input + ${usage.outputTokens} output tokens`);
  else if (usage.inputTokens !== undefined) parts.push(`${usage.inputTokens} input tokens`);
  else if (usage.outputTokens !== undefined) parts.push(`${usage.outputTokens} output tokens`);
  else parts.push('tokens not reported by the provider');
  if (usage.providerCalls !== undefined) parts.push(`${usage.providerCalls} provider call${usage.providerCalls === 1 ? '' : 's'}`);
  return parts.join(', ');
}
