/**
 * Vitest's global setup: one throwaway PostgreSQL cluster for the whole run,
 * whose URL every test file reads through cluster.ts (each file then works in
 * a database of its own). None when AGENTSTATE_TEST_POSTGRES_URL names a
 * server, and none on a machine without the binaries: then only the
 * PostgreSQL tests fail, with the reason.
 */
import type { TestProject } from 'vitest/node';
import { haveBinaries, startCluster } from './start-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the run's cluster (its `postgres` database), when one was started. */
    postgresCluster: string | undefined;
  }
}

/** Starts the run's cluster and returns its teardown. */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.AGENTSTATE_TEST_POSTGRES_URL || !haveBinaries()) {
    project.provide('postgresCluster', undefined);
    return undefined;
  }
  const cluster = await startCluster();
  project.provide('postgresCluster', cluster.url);
  return () => cluster.stop();
}
