/**
 * A provider that is not event sourced (no log, no snapshots) runs the same
 * suite: the checks that need a log are skipped because the provider lacks
 * it, and every other check, including the fallbacks that read the model
 * instead of the log (B32, B37, B39), must pass.
 */
import type { Provider } from '@agentstate/core';
import { createInMemoryProvider } from '@agentstate/core';
import { runProviderConformance } from '@agentstate/testing';

/** Only the `Provider` surface of an in-memory provider. */
function plain(inner: Provider): Provider {
  return {
    name: 'plain',
    sessions: inner.sessions,
    skills: inner.skills,
    memory: inner.memory,
    workingMemory: inner.workingMemory,
    checkpoints: inner.checkpoints,
    namespaces: (o) => inner.namespaces(o),
    close: () => inner.close(),
  };
}

runProviderConformance({
  name: 'plain provider (capabilities detected: not event sourced)',
  create: async (options) => plain(createInMemoryProvider(options)),
});
