/** The provider layer's public surface: what the refine use case and the server need. */
export { findProviderConfigProblem } from './provider-config.js';
export { createProviderRegistry, type ProviderBudget, type ProviderCall, type ProviderRegistry, type ProviderRegistryOptions, type ProviderTextStream } from './registry.js';
export { closeTransportPools, warmTransport } from './wire/transport.js';
export type { StructuredOutput, TokenUsage } from './wire/wire-format.js';
