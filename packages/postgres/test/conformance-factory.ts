/**
 * How the conformance suite of @agentstate/testing gets PostgreSQL storage:
 * each check on an empty schema of the test server (a fresh one, or one a
 * check that passed gave back, emptied to what a fresh one holds), its
 * providers on the file's one pool (durable: reopen; shared storage: a pool
 * of its own on the same schema, as another process would open it; other
 * processes: the built package opening the schema; destroy: give the schema
 * back), and the standalone log on such a schema too. The suite runs from
 * three files (`conformance.int.test.ts`, `conformance-2.int.test.ts`,
 * `conformance-3.int.test.ts`), each with part of the checks, so that a
 * run's workers share it.
 */
import type { Provider } from '@agentstate/core';
import type { LogFactory, ProviderFactory, ProviderFactoryOptions, ProviderSuiteOptions } from '@agentstate/testing';
import type { PostgresLog, PostgresProvider } from '../src/index.js';
import { openPostgres, openPostgresLog } from '../src/index.js';
import pg from 'pg';
import { afterAll, afterEach } from 'vitest';
import { freshSchema, releaseSchema, testServer } from './cluster.js';

const BUILT = new URL('../dist/index.js', import.meta.url).href;

/** Where each provider lives, so reopen, openShared and destroy find it. */
const schemas = new WeakMap<Provider, { schema: string; owner: boolean }>();

let filePool: pg.Pool | undefined;

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

/**
 * Empty schemas to hand out again. Creating a schema (16 tables, 22 indexes, functions: their catalog rows and files)
 * costs the server about 85 ms of CPU, more than most checks; emptying one back to what a fresh one holds costs a few.
 */
const spare: string[] = [];
/** The schemas the running check gave back. */
const givenBack: string[] = [];
/** A fresh schema no check writes to, and the statements that empty another schema to what it holds. */
let pristine: Promise<{ name: string; emptying: (schema: string) => string }> | undefined;

// Registered after cluster.ts's hook, so it runs before the file's database is dropped.
afterAll(async () => {
  await Promise.all([...spare.splice(0), ...(pristine === undefined ? [] : [(await pristine).name])].map(release));
  await filePool?.end();
});

/** An empty schema: a spare one, else a fresh one. */
function emptySchema(): string {
  return spare.pop() ?? freshSchema('conf');
}

// A check's schemas are emptied only once it passed: a failed one may have left a write running that would land in the
// next check's store.
afterEach(async (ctx) => {
  const back = givenBack.splice(0);
  const passed = ctx.task.result?.state === 'pass';
  for (const schema of back) {
    if (passed && (await emptied(schema))) spare.push(schema);
    else await release(schema);
  }
});

/** The error code of a schema whose objects a check changed (a trigger left behind, say): it is not emptied. */
const CHANGED = 'AS001';

/** The relations, functions and triggers of a schema, as one sorted array. */
function objectsOf(schema: string): string {
  const namespace = `'"${schema}"'::regnamespace`;
  return `(SELECT array_agg(kind || ' ' || name ORDER BY kind, name) FROM (
    SELECT 'relation' AS kind, relname::text AS name FROM pg_class WHERE relnamespace = ${namespace}
    UNION ALL SELECT 'function', proname::text FROM pg_proc WHERE pronamespace = ${namespace}
    UNION ALL SELECT 'trigger', tgname::text FROM pg_trigger JOIN pg_class ON pg_class.oid = tgrelid WHERE relnamespace = ${namespace}
  ) found)`;
}

/** Makes the pristine schema and learns what emptying another takes: its tables, those it seeds, its sequences. */
async function makePristine(): Promise<{ name: string; emptying: (schema: string) => string }> {
  const name = freshSchema('pristine');
  const pool = await sharedPool();
  await (await openPostgres(pool, { schema: name })).close();
  const { rows } = await pool.query<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = $1', [name]);
  const tables = rows.map((row) => row.name);
  const seeded: string[] = [];
  for (const table of tables) {
    const [row] = (await pool.query<{ seeded: boolean }>(`SELECT EXISTS (SELECT FROM "${name}".${table}) AS seeded`)).rows;
    if (row?.seeded) seeded.push(table);
  }
  const { rows: sequences } = await pool.query<{ name: string; start: string }>(
    'SELECT sequencename AS name, start_value::text AS start FROM pg_sequences WHERE schemaname = $1',
    [name],
  );
  return {
    name,
    // One round trip, one transaction: a schema whose objects are not the pristine one's fails at the first statement.
    emptying: (schema) =>
      [
        `DO $$ BEGIN IF ${objectsOf(schema)} IS DISTINCT FROM ${objectsOf(name)} THEN
           RAISE EXCEPTION USING ERRCODE = '${CHANGED}', MESSAGE = 'not a fresh schema''s objects'; END IF; END $$`,
        ...tables.map((table) => `DELETE FROM "${schema}".${table}`),
        ...seeded.map((table) => `INSERT INTO "${schema}".${table} SELECT * FROM "${name}".${table}`),
        `SELECT ${sequences.map((sequence) => `setval('"${schema}".${sequence.name}', ${sequence.start}, false)`).join(', ')}`,
        // The one value a fresh schema draws at random: the store's identity (schema-script.ts).
        `UPDATE "${schema}".store_meta SET value = md5(random()::text) || md5(random()::text) WHERE key = 'log_identity'`,
      ].join(';\n'),
  };
}

/** Empties `schema` to what the pristine schema holds, with an identity of its own; false, and nothing done, when its objects are not a fresh schema's. */
async function emptied(schema: string): Promise<boolean> {
  pristine ??= makePristine();
  try {
    await onServer((await pristine).emptying(schema));
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === CHANGED) return false;
    throw error;
  }
}

/** Drops a schema of a check when the file's database outlives the file. */
async function release(schema: string): Promise<void> {
  await releaseSchema((await testServer()).url, schema);
}

/** A provider on `schema`: on the file's pool, or on a pool of its own (`own`). */
async function open(schema: string, options: ProviderFactoryOptions = {}, own = false): Promise<PostgresProvider> {
  return openPostgres(own ? (await testServer()).url : await sharedPool(), { ...options, schema });
}

/** The provider factory of the PostgreSQL conformance files. */
export const postgresFactory: ProviderFactory = {
  name: 'postgres',
  create: async (options) => {
    const schema = emptySchema();
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
    if (place?.owner) givenBack.push(place.schema);
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
    const schema = emptySchema();
    const log = await openPostgresLog(await sharedPool(), { ...options, schema });
    logSchemas.set(log, schema);
    return log;
  },
  destroy: async (log) => {
    await (log as PostgresLog).close();
    const schema = logSchemas.get(log as PostgresLog);
    if (schema) givenBack.push(schema);
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
