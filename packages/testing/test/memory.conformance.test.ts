/**
 * Proves core: the in-memory provider and MemoryLog run the whole
 * conformance suite, imported through the published entry points.
 */
import { createMemoryProvider, MemoryLog } from '@agentstate/core';
import { runLogConformance, runProviderConformance } from '@agentstate/testing';

runProviderConformance({
  name: 'memory',
  create: async (options) => createMemoryProvider(options),
});

runLogConformance({
  name: 'MemoryLog',
  create: async (options) => new MemoryLog(options),
});
