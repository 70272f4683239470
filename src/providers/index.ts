/** The provider layer's public surface: what the refine use case and config need. */
export { findProviderConfigProblem } from './operator-providers.js';
export { createProviderRegistry, type ProviderRegistry, type ProviderRegistryOptions } from './registry.js';
export { closeTransportPools, warmTransport } from './wire/transport.js';
