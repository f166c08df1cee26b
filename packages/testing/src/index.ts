/**
 * @agentstate/testing — the conformance suite every agentstate backend runs:
 * `runProviderConformance(factory)` for a `Provider`, `runLogConformance(factory)` for a `Log`.
 * Both register vitest tests in the calling file. The fast-check arbitraries live in the separate
 * entry `@agentstate/testing/arbitraries`.
 */
export type {
  Capability,
  LogFactory,
  LogFactoryOptions,
  LogSuiteOptions,
  ProcessTarget,
  ProviderCapabilities,
  ProviderFactory,
  ProviderFactoryOptions,
  ProviderSuiteOptions,
  ResolvedCapabilities,
} from './factory.js';
export { resolveCapabilities } from './factory.js';
export { runProviderConformance } from './run-provider.js';
export { runLogConformance } from './run-log.js';
export type { CheckInfo } from './catalog.js';
export { listLogChecks, listProviderChecks } from './catalog.js';
