/**
 * Proves core: the in-memory provider and InMemoryLog run the whole
 * conformance suite, imported through the published entry points.
 */
import type { EventSourcedProvider } from '@agentstate/core';
import { createInMemoryProvider, InMemoryLog, replay } from '@agentstate/core';
import { runLogConformance, runProviderConformance } from '@agentstate/testing';

runProviderConformance({
  name: 'in-memory',
  create: async (options) => createInMemoryProvider(options),
  // The storage of an in-memory provider is its log: reopening folds it again.
  reopen: async (provider, options) => {
    await provider.close();
    return replay((provider as EventSourcedProvider).log, options);
  },
});

runLogConformance({
  name: 'InMemoryLog',
  create: async (options) => new InMemoryLog(options),
});
