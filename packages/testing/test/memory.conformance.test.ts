/**
 * Proves core: the in-memory provider and MemoryLog run the whole
 * conformance suite, imported through the published entry points.
 */
import type { EventSourcedProvider } from '@agentstate/core';
import { createMemoryProvider, MemoryLog, replay } from '@agentstate/core';
import { runLogConformance, runProviderConformance } from '@agentstate/testing';

runProviderConformance({
  name: 'memory',
  create: async (options) => createMemoryProvider(options),
  // The storage of an in-memory provider is its log: reopening folds it again.
  reopen: async (provider, options) => {
    await provider.close();
    return replay((provider as EventSourcedProvider).log, options);
  },
});

runLogConformance({
  name: 'MemoryLog',
  create: async (options) => new MemoryLog(options),
});
