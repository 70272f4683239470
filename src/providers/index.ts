/** The provider layer's public surface: what the refine use case and config need. */
export { ClientAbortedError } from './provider-call.js';
export {
  findProviderConfigProblem,
  reservedProviderIds,
  type ProviderConfigProblem,
} from './operator-providers.js';
export {
  createProviderRegistry,
  type ProviderAnswer,
  type ProviderBudget,
  type ProviderCall,
  type ProviderRegistry,
  type ProviderRegistryOptions,
} from './registry.js';
export { closeTransportPools, warmTransport } from './wire/transport.js';
