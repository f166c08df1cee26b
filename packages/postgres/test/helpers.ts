/** Shared helpers of the PostgreSQL tests: providers on fresh schemas, and deterministic pairs with the reference. */
import { createInMemoryProvider, ManualClock, seededEntropy } from '@agentstate/core';
import type { EventSourcedProvider } from '@agentstate/core';
import { openPostgres } from '../src/index.js';
import type { PostgresOptions, PostgresProvider } from '../src/index.js';
import { dropSchema, freshSchema, releaseSchema, testServer } from './cluster.js';

/** A provider on a fresh schema of the test server, and a close that drops the schema. */
export async function fresh(options: PostgresOptions = {}): Promise<{ provider: PostgresProvider; url: string; schema: string; close: () => Promise<void> }> {
  const { url } = await testServer();
  const schema = options.schema ?? freshSchema();
  const provider = await openPostgres(url, { max: 4, ...options, schema });
  return {
    provider,
    url,
    schema,
    close: async () => {
      await provider.close();
      await (options.schema === undefined ? releaseSchema : dropSchema)(url, schema);
    },
  };
}

/** The deterministic options two providers share: same clock start, seed and instance. */
export function deterministic(seed = 7): { clock: ManualClock; entropy: ReturnType<typeof seededEntropy>; instanceId: string } {
  return { clock: new ManualClock(Date.UTC(2026, 10, 29, 16, 54)), entropy: seededEntropy(seed), instanceId: 'instance-a' };
}

/** A memory reference and a PostgreSQL provider with identical deterministic options. */
export async function pgPair(): Promise<{ memory: EventSourcedProvider; postgres: PostgresProvider; clocks: ManualClock[]; close: () => Promise<void> }> {
  const a = deterministic();
  const b = deterministic();
  const memory = createInMemoryProvider(a);
  const { provider, close } = await fresh(b);
  return {
    memory,
    postgres: provider,
    clocks: [a.clock, b.clock],
    close: async () => {
      await memory.close();
      await close();
    },
  };
}
