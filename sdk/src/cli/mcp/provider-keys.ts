/**
 * Where `mcp` finds a provider key: the variable each built-in provider's own SDK reads, so an
 * agent host's configuration passes the keys it already has, by their usual names.
 */
import type { PersonaRefine } from '../../index.js';
import { UsageError, checkKeyVariable } from '../io.js';
import { PROVIDER_KEY_VARIABLE } from '../refine-command.js';

export const PROVIDER_KEY_VARIABLES: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GEMINI_API_KEY',
  groq: 'GROQ_API_KEY',
  mistral: 'MISTRAL_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  xai: 'XAI_API_KEY',
};

/** A provider the operator declared has no usual name for its key: the CLI's own variable holds it. */
export function providerKeyVariable(provider: string): string {
  return Object.hasOwn(PROVIDER_KEY_VARIABLES, provider) ? PROVIDER_KEY_VARIABLES[provider]! : PROVIDER_KEY_VARIABLE;
}

/**
 * The key for `provider` when the service says it needs one, none otherwise (`rules` applies the
 * persona's rules without a model), so a key only ever leaves for the provider it belongs to.
 */
export async function providerKeyFor(client: PersonaRefine, provider: string, env: Record<string, string | undefined>, signal: AbortSignal): Promise<string | undefined> {
  const offered = await client.providers({ signal });
  const chosen = offered.find((candidate) => candidate.id === provider);
  if (!chosen) throw new UsageError(`unknown provider "${provider}"; this service offers ${offered.map((candidate) => candidate.id).join(', ')}`);
  if (!chosen.requiresKey) return undefined;
  const variable = providerKeyVariable(provider);
  const key = env[variable];
  if (!key) throw new UsageError(`provider "${provider}" needs a key: set ${variable} in the MCP server's environment`);
  checkKeyVariable(variable, key);
  return key;
}
