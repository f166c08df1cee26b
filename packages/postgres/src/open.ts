/**
 * `openPostgres(urlOrPool)`: a complete agentstate provider in one schema of
 * a PostgreSQL database, its event log in the same schema. Opening
 * identifies the schema, creates it or makes its derived part again when
 * that has another version (`schema.ts`) and folds the log into it, in one
 * transaction; the provider's clock starts past every stored HLC.
 */
import type pg from 'pg';
import type { EventSourcedProvider, StateProviderOptions, VerifyReport } from '@agentstate/core';
import { createStateProvider } from '@agentstate/core/backend';
import type { PostgresCompactResult } from './compact.js';
import { compactSchema } from './compact.js';
import type { LogOptions, RebuildOptions, RebuildResult, VerifyOptions } from '@agentstate/core/backend';
import { PostgresBackend } from './backend.js';
import type { PoolOptions } from './database.js';
import type { Sql } from './database.js';
import { checkSchemaName, Database, openPool } from './database.js';
import { PostgresLog } from './log.js';
import { Projection } from './projection.js';
import { postgresQueries } from './queries.js';
import type { SchemaFinding } from './schema.js';
import { isCurrent, prepareSchema } from './schema.js';
import type { SubscribeOptions, Subscription } from './subscribe.js';
import type { VectorIndex, VectorIndexChoice } from './vectors.js';
import { chooseVectorIndex, memoryVectors, turnVectors } from './vectors.js';
import { schemaBytes } from './size.js';

/** The schema agentstate's tables live in by default. */
export const DEFAULT_SCHEMA = 'agentstate';

/** Options of the connection, shared by {@link openPostgres} and {@link openPostgresLog}. */
export interface PostgresConnectionOptions extends PoolOptions {
  /**
   * The schema holding agentstate's tables, created if missing, so that
   * agentstate can share a database with the application. A lower-case
   * identifier. Default: `agentstate`.
   */
  schema?: string;
  /**
   * Whether a missing schema (one holding no tables) is created. Default:
   * true. False refuses it with a `NotFoundError` (`schema`) and creates
   * nothing: what a reader that must not write opens with, so that a
   * mistyped schema name is told rather than made.
   */
  create?: boolean;
}

/** Options of {@link openPostgres}. */
export interface PostgresOptions extends StateProviderOptions, PostgresConnectionOptions {
  /**
   * How semantic and hybrid recall find nearest neighbours. `auto` uses
   * pgvector's HNSW indexes (cosine) when the `vector` extension is
   * created in the database or can be created, else the exact fallback;
   * `exact` always ranks every live vector passing the filter. Default: `auto`.
   */
  vectorIndex?: VectorIndexChoice;
  /**
   * Told how far opening has folded the log into the tables, after each
   * batch of events (`done` of `total`), when there is anything to fold: a
   * schema whose derived part was made by another version.
   */
  onProgress?: (done: number, total: number) => void;
}

/** A provider whose log and projection live in one PostgreSQL schema. */
export interface PostgresProvider extends EventSourcedProvider {
  /** The schema holding its tables. */
  readonly schema: string;
  /** The log, which can also follow a stream live ({@link PostgresLog.subscribe}). */
  readonly log: PostgresLog;
  /** Follows the log live: see {@link PostgresLog.subscribe}. */
  subscribe(options?: SubscribeOptions): Subscription;
  /**
   * Checks the schema without writing: the log read back and replayed,
   * the tables and stored snapshots compared with the replay byte for byte,
   * the metadata and full-text indexes compared with the rows. Every
   * problem names its part and the repair that fixes it.
   */
  verify(options?: VerifyOptions): Promise<VerifyReport>;
  /**
   * Empties the tables and derives them again from the log (from the newest
   * trustworthy snapshot unless `fromScratch`), in one transaction under the
   * writers' lock exclusive: writers of every process wait, readers see the
   * old tables until it commits.
   */
  rebuild(options?: RebuildOptions): Promise<RebuildResult>;
  /** The bytes the schema's tables take on the server, with their indexes and TOAST data (`pg_total_relation_size`). */
  sizeBytes(): Promise<number>;
  /**
   * Takes the erased text of earlier purges off the server's files, as far
   * as a role can: `VACUUM FULL` of every table of the schema it owns (each
   * locked while it is rewritten: run it when a pause of writers and readers
   * is acceptable), then `CHECKPOINT`, a WAL switch and `CHECKPOINT`. The
   * result names what the server still keeps (WAL settings, slots,
   * archives): the operator's steps (`POSTGRES_ERASURE_STEPS`).
   */
  compact(): Promise<PostgresCompactResult>;
}

/** @internal Opens the pool (or takes the application's) for the schema, without touching the schema. */
export function connectDatabase(urlOrPool: string | pg.Pool, options: PostgresConnectionOptions): Database {
  const schema = checkSchemaName(options.schema ?? DEFAULT_SCHEMA);
  const { pool, owned } = openPool(urlOrPool, options);
  return new Database(pool, schema, owned);
}

/**
 * Runs `fn` in a transaction after preparing the schema in it when it is
 * not ready (`schema.ts`); ready is the common case, checked first without
 * the schema's lock, which a crowd of starting processes would queue on.
 */
async function preparedTransaction<T>(db: Database, create: boolean, fn: (sql: Sql, found: SchemaFinding) => Promise<T>): Promise<T> {
  const ready = await isCurrent(db, db.schema);
  return db.transaction(async (sql) => fn(sql, ready ? 'current' : await prepareSchema(sql, db.schema, create)));
}

/**
 * Opens (or creates) agentstate's schema in the database at `urlOrPool` —
 * a `postgres://` URL, or a `pg.Pool` the application owns (then `close`
 * leaves it open) — and returns its provider. Anything else (`undefined`
 * from an unset variable) is a `ValidationError` on `urlOrPool`. Throws
 * `IncompatibleDatabaseError` (code `incompatible`) for a schema holding
 * another application's tables or a newer version's, without changing it;
 * a `ConnectionLostError` when the server cannot be reached.
 */
export async function openPostgres(urlOrPool: string | pg.Pool, options: PostgresOptions = {}): Promise<PostgresProvider> {
  const db = connectDatabase(urlOrPool, options);
  try {
    const log = new PostgresLog(db, { clock: options.clock, upcasters: options.upcasters });
    const projection = new Projection(db);
    const backendWith = (index: VectorIndex | undefined): PostgresBackend =>
      new PostgresBackend(
        db,
        log,
        projection,
        postgresQueries(db),
        index && memoryVectors(db, index),
        index && turnVectors(db, index),
        options.upcasters,
        options.snapshotCodec,
      );
    // A derived part just made again is folded from the whole log now, in the transaction that prepared the
    // schema (which holds the writers' lock exclusive). The fold needs no vectors: the index is chosen after,
    // so a refused schema leaves the database without the pgvector extension the choice may create.
    const opened = await preparedTransaction(db, options.create !== false, async (sql, found) => {
      if (found === 'stale') await backendWith(undefined).foldAll(sql, options.onProgress);
      return projection.maxHlc(sql);
    });
    const backend = backendWith(await chooseVectorIndex(db, options.vectorIndex));
    backend.openedAt(opened);
    const provider = createStateProvider(backend, options);
    return {
      ...provider,
      log,
      schema: db.schema,
      subscribe: (o) => log.subscribe(o),
      verify: (o) => backend.verify(o),
      rebuild: (o) => backend.rebuild(o),
      sizeBytes: () => schemaBytes(db),
      compact: () => compactSchema(db),
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** Options of {@link openPostgresLog}. */
export interface PostgresLogOpenOptions extends PostgresConnectionOptions, LogOptions {}

/**
 * Opens the event log of agentstate's schema on its own: a complete `Log`
 * (docs/contract.md §7) with `close()`. An append to the `state` stream
 * here is folded into the tables in its own transaction; when this open
 * found a derived part of another version, it made it again from the log.
 */
export async function openPostgresLog(urlOrPool: string | pg.Pool, options: PostgresLogOpenOptions = {}): Promise<PostgresLog> {
  const db = connectDatabase(urlOrPool, options);
  const log = new PostgresLog(db, { clock: options.clock, upcasters: options.upcasters });
  try {
    await preparedTransaction(db, options.create !== false, async (sql, found) => {
      if (found === 'stale')
        await new PostgresBackend(db, log, new Projection(db), postgresQueries(db), undefined, undefined, options.upcasters, undefined).foldAll(sql);
    });
  } catch (error) {
    await db.close();
    throw error;
  }
  log.ownDatabase();
  return log;
}
