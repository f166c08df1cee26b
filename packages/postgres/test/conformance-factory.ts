/**
 * How the conformance suite of @agentstate/testing gets PostgreSQL storage:
 * each check on a fresh schema of the test server, its providers on the
 * file's one pool (durable: reopen; shared storage: a pool of its own on the
 * same schema, as another process would open it; other processes: the built package opening the schema; destroy: drop
 * the schema, when it outlives the file's database), and the standalone log on a schema of its own. The suite
 * runs from three files (`conformance.int.test.ts`, `conformance-2.int.test.ts`,
 * `conformance-3.int.test.ts`), each with part of the checks, so that a run's workers share it.
 */
import type { Provider } from '@agentstate/core';
import type { LogFactory, ProviderFactory, ProviderFactoryOptions, ProviderSuiteOptions } from '@agentstate/testing';
import type { PostgresLog, PostgresProvider } from '../src/index.js';
import { openPostgres, openPostgresLog } from '../src/index.js';
import pg from 'pg';
import { afterAll } from 'vitest';
import { freshSchema, releaseSchema, testServer } from './cluster.js';

const BUILT = new URL('../dist/index.js', import.meta.url).href;

/** Where each provider lives, so reopen, openShared and destroy find it. */
const schemas = new WeakMap<Provider, { schema: string; owner: boolean }>();

let filePool: pg.Pool | undefined;
// Registered after cluster.ts's hook, so it runs before the file's database is dropped.
afterAll(() => filePool?.end());

/**
 * The file's pool, as an application shares one between stores: a connection is a server process, and starting one
 * cost the server more CPU than most checks, when each provider started its own. Idle connections stay open.
 */
async function sharedPool(): Promise<pg.Pool> {
  if (filePool === undefined) {
    filePool = new pg.Pool({ connectionString: (await testServer()).url, max: 16, idleTimeoutMillis: 0 });
    filePool.on('error', () => undefined);
  }
  return filePool;
}

/** A provider on `schema`: on the file's pool, or on a pool of its own (`own`). */
async function open(schema: string, options: ProviderFactoryOptions = {}, own = false): Promise<PostgresProvider> {
  return openPostgres(own ? (await testServer()).url : await sharedPool(), { ...options, schema });
}

/** The provider factory of the PostgreSQL conformance files. */
export const postgresFactory: ProviderFactory = {
  name: 'postgres',
  create: async (options) => {
    const schema = freshSchema('conf');
    const provider = await open(schema, options);
    schemas.set(provider, { schema, owner: true });
    return provider;
  },
  reopen: async (provider, options) => {
    const place = schemas.get(provider)!;
    await provider.close();
    const reopened = await open(place.schema, options);
    schemas.set(reopened, place);
    return reopened;
  },
  openShared: async (provider, options) => {
    const place = schemas.get(provider)!;
    const shared = await open(place.schema, options, true);
    schemas.set(shared, { schema: place.schema, owner: false });
    return shared;
  },
  // Writer processes open the schema through the built package, as open() does.
  processTarget: async (provider) => ({
    module: BUILT,
    open: 'openPostgres',
    args: [(await testServer()).url, { schema: schemas.get(provider)!.schema, max: 2 }],
  }),
  failCommits: async (provider) => {
    const { schema } = schemas.get(provider)!;
    await onServer(`CREATE FUNCTION "${schema}".fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected COMMIT failure'; END $$;
      CREATE CONSTRAINT TRIGGER fail_commit AFTER INSERT ON "${schema}".events DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_commit()`);
    return () => onServer(`DROP TRIGGER fail_commit ON "${schema}".events; DROP FUNCTION "${schema}".fail_commit()`);
  },
  destroy: async (provider) => {
    await provider.close();
    const place = schemas.get(provider);
    if (place?.owner) await releaseSchema((await testServer()).url, place.schema);
  },
};

/** Runs `sql` on the test server. */
async function onServer(sql: string): Promise<void> {
  await (await sharedPool()).query(sql);
}

const logSchemas = new WeakMap<PostgresLog, string>();

/** The log factory of the PostgreSQL conformance files. */
export const postgresLogFactory: LogFactory = {
  name: 'PostgresLog',
  create: async (options) => {
    const schema = freshSchema('log');
    const log = await openPostgresLog(await sharedPool(), { ...options, schema });
    logSchemas.set(log, schema);
    return log;
  },
  destroy: async (log) => {
    await (log as PostgresLog).close();
    const schema = logSchemas.get(log as PostgresLog);
    if (schema) await releaseSchema((await testServer()).url, schema);
  },
};

/**
 * The options of the three files: `only` their part, and fewer runs of each property than in-memory's 20. A property
 * runs its full count on the in-memory provider, over the same fold and merge rules; here it exercises what PostgreSQL
 * adds (its tables, its fold, its transactions) on the same arbitraries, and its faults show in a few runs.
 */
export function suiteOptions(only: (part: string) => boolean): ProviderSuiteOptions {
  return { only: (name) => only(name[0]!), propertyRuns: 8 };
}

/** The parts (check letters) the first conformance file runs: about half of the suite's time each way. */
export const IN_FIRST_FILE: readonly string[] = ['C', 'E', 'G', 'M', 'N', 'Q', 'R', 'S'];

/** The part the third file runs: sync between stores (Y), as long as the rest of the second file. */
export const IN_THIRD_FILE: readonly string[] = ['Y'];
