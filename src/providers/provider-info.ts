/** A provider as GET /v1/providers lists it (docs/architecture.md, "The domain owns its types"). */
export interface ProviderInfo {
  /** What to send as `provider` in a refine. */
  id: string;
  name: string;
  /** The model a refine uses when it names none; null for `rules`, which calls no model. */
  defaultModel: string | null;
  /** Whether a refine through it needs `providerApiKey`. */
  requiresKey: boolean;
}
