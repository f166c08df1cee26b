/**
 * `openSqlite(path)`: a complete agentstate provider in one SQLite file (or
 * `:memory:`), its event log in the same file. Opening identifies the file,
 * switches it to WAL, creates a new one in one step or folds an older one's
 * tables again from its log (`schema/index.ts`), and folds any event the
 * tables have not seen; the provider's clock starts past every stored HLC.
 * Opened with `readonly`, it does none of the writing: the file must already
 * be a complete, current agentstate database.
 */
import type { EventSourcedProvider, StateProviderOptions } from '@agentstate/core';
import { STATE_STREAM, systemClock, UnavailableError } from '@agentstate/core';
import { createStateProvider } from '@agentstate/core/backend';
import { SqliteBackend } from './backend.js';
import type { ConnectionOptions, SynchronousLevel } from './connection.js';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from './connection.js';
import { foldPending } from './fold.js';
import type { Durability } from './durability.js';
import { synchronousLevel } from './durability.js';
import { IncompatibleDatabaseError, mapSqliteError } from './errors.js';
import { checkDatabaseFile } from './file.js';
import { SqliteLog } from './log.js';
import { inspectDatabase, prepareSchema, requireCurrentSchema } from './schema/index.js';
import { Projection } from './projection.js';
import { sqliteQueries, tableLookups } from './queries.js';
import type { LogOptions, RebuildOptions, RebuildResult } from '@agentstate/core/backend';
import { bulkLoad, rebuild, refold } from './rebuild.js';
import { memoryVectorStore, turnVectorStore } from './vector-store.js';
import { VectorIndexes } from './vectors.js';
import type { VerifyOptions, VerifyReport } from './verify/index.js';

/** Options of {@link openSqlite} and {@link openSqliteLog}'s connection. */
export interface SqliteConnectionOptions {
  /**
   * A deadline for waiting on another process's write lock, in ms: a write
   * still waiting for it then fails with a retryable `ConflictError`.
   * Default: none, a write waits as long as the lock is held (writers take
   * turns: see the README, "Several processes").
   */
  busyTimeoutMs?: number;
  /**
   * What an acknowledged write survives: `'power-loss'` (default) fsyncs
   * every commit, so it survives a crash of the process or the operating
   * system and a power cut; `'process-crash'` survives the process being
   * killed, but an OS crash or power cut may take the last commits (never
   * half of one), and is much faster. The same choice as `synchronous`
   * `'full'` and `'normal'`; giving both is allowed only when they agree.
   */
  durability?: Durability;
  /**
   * `PRAGMA synchronous` (WAL mode). `full` (default) fsyncs every commit: an
   * acknowledged write survives power loss. `normal` survives a crash of the
   * process but may lose the last commits on power loss; it is much faster.
   * `off` leaves syncing to the OS: for bulk loads you can redo, never for
   * state you care about.
   */
  synchronous?: SynchronousLevel;
  /**
   * Open for reading only: the file must exist and is never created,
   * upgraded, switched to WAL or written; every write fails with a
   * `ReadOnlyError`. Works on read-only files, folders and media (in a
   * read-only folder, a file whose `-wal` is empty is read from a copy in
   * memory). A file that needs a write first (one written by an earlier
   * version, whose tables must be folded again; tables behind the log) is
   * refused with an `IncompatibleDatabaseError` (reason `needs-migration` or
   * `behind-log`) saying to open it writable once. Default: false.
   */
  readonly?: boolean;
}

/** Options of {@link openSqlite}. */
export interface SqliteOptions extends StateProviderOptions, SqliteConnectionOptions {
  /**
   * Relevance order (lexical `order: 'relevance'`, and the lexical leg of
   * hybrid recall) ranks at most this many of the most recently written
   * matches, which bounds its latency on large stores; exact when fewer
   * match. 0: rank every match. Default: 5000.
   */
  relevanceWindow?: number;
  /**
   * Called while opening folds many events into the tables: a file written
   * by an earlier version (its tables are derived again from its log), or a
   * log appended to without a provider: with the events folded so far and
   * the events to fold, after each batch of a few thousand (as `verify`'s
   * `onProgress`), and with 0 done as a refold starts. Not called when there
   * is nothing to fold.
   */
  onProgress?: (done: number, total: number) => void;
}

/** A provider whose log and projection live in one SQLite file. */
export interface SqliteProvider extends EventSourcedProvider {
  /** The file (or `:memory:`). */
  readonly path: string;
  /**
   * Drops and re-derives every projection table, the full-text and the
   * vector indexes from the log, from the newest valid snapshot. Atomic: a
   * corrupted event fails it with a `CorruptionError` and changes nothing.
   */
  rebuild(options?: RebuildOptions): Promise<RebuildResult>;
  /**
   * Checks the whole file and reports every problem with the part it lives
   * in and what repairs it: SQLite's integrity check over every page and
   * index, the log read back and replayed against the tables and every
   * stored snapshot, the full-text indexes against the rows, the vector
   * tables. Reads only, in one read transaction.
   */
  verify(options?: VerifyOptions): Promise<VerifyReport>;
}

function connectionOptions(options: SqliteConnectionOptions): ConnectionOptions {
  return {
    busyTimeoutMs: options.busyTimeoutMs,
    synchronous: synchronousLevel(options.durability, options.synchronous) ?? DEFAULT_CONNECTION_OPTIONS.synchronous,
    readonly: options.readonly === true,
  };
}

/**
 * Opens, identifies, configures and brings a database file to this
 * library's schema, `refold` filling the tables of an older one (see
 * `prepareSchema`); read-only, only identifies it and refuses one that would
 * need a write.
 */
export function openConnection(path: string, options: SqliteConnectionOptions = {}, refold?: (conn: Connection) => void): Connection {
  const settings = connectionOptions(options);
  checkDatabaseFile(path, settings.readonly === true);
  const conn = Connection.open(path, settings);
  try {
    const identity = inspectDatabase(conn);
    if (conn.readonly) requireCurrentSchema(path, identity);
    conn.configure(settings);
    if (!conn.readonly) prepareSchema(conn, identity, refold);
    conn.openReader(settings);
    return conn;
  } catch (error) {
    conn.closeHandles();
    throw mapSqliteError(error, path);
  }
}

/**
 * Opens (or creates) the agentstate database at `path` — a file, or
 * `:memory:` — and resolves to its provider, as `openPostgres` does for a
 * schema. Recall is hybrid by default with an `embedder`, lexical without
 * one (`openDatabase` of `@agentstate/open` gives the offline one). Rejects
 * with `IncompatibleDatabaseError` (a `ValidationError`) for
 * a file that is not an agentstate database or comes from a newer version,
 * without changing it.
 */
export async function openSqlite(path: string, options: SqliteOptions = {}): Promise<SqliteProvider> {
  const conn = openConnection(path, options, (c) => refold(c, { upcasters: options.upcasters, onProgress: options.onProgress }));
  try {
    const indexes = new VectorIndexes(conn);
    if (!indexes.available && (options.embedder || indexes.list().length > 0)) {
      throw new UnavailableError('sqlite-vec could not be loaded: install it (never with --omit=optional) to use vectors');
    }
    const log = new SqliteLog(conn, { clock: options.clock ?? systemClock, upcasters: options.upcasters });
    const projection = new Projection(conn, indexes);
    const vectors = indexes.available ? memoryVectorStore(conn, indexes) : undefined;
    const turnVectors = indexes.available ? turnVectorStore(conn, indexes) : undefined;
    const queries = sqliteQueries(conn, { relevanceWindow: options.relevanceWindow, upcasters: options.upcasters });
    const backend = new SqliteBackend(
      conn,
      log,
      projection,
      queries,
      vectors,
      { upcasters: options.upcasters, snapshotCodec: options.snapshotCodec },
      turnVectors,
    );
    const tables = tableLookups(conn);
    // Events appended to the state stream without a projection (a bare log) are folded now.
    // Both positions are read in one transaction: another process may commit between two reads.
    const behind = conn.read(() => log.headNow(STATE_STREAM) - projection.state().seq);
    if (behind !== 0 && conn.readonly) {
      throw new IncompatibleDatabaseError(path, 'behind-log', `has tables ${behind} events behind its log: open it writable once to bring them up to date`);
    }
    if (behind !== 0) {
      conn.immediate(() => {
        const fold = () => foldPending(log, projection, tables, { upcasters: options.upcasters, onProgress: options.onProgress });
        // An empty projection (a log-only file, or one whose tables a log opened on its own created again) is
        // filled as a bulk load, and its vectors are derived again from the embedding cache.
        if (projection.state().seq === 0) bulkLoad(projection, indexes, fold);
        else fold();
      });
    }
    const provider = createStateProvider(backend, options);
    return {
      ...provider,
      path,
      rebuild: (rebuildOptions?: RebuildOptions) =>
        rebuild({ conn, log, projection, tables, vectors: indexes, codec: options.snapshotCodec, upcasters: options.upcasters }, rebuildOptions),
      // Loaded on the first call: most processes never verify, and its checks are five modules.
      verify: async (verifyOptions?: VerifyOptions) =>
        (await import('./verify/index.js')).verify({ conn, log, projection, codec: options.snapshotCodec, upcasters: options.upcasters }, verifyOptions),
    };
  } catch (error) {
    conn.closeHandles();
    throw mapSqliteError(error, path);
  }
}

/** Options of {@link openSqliteLog}. */
export interface SqliteLogOpenOptions extends SqliteConnectionOptions, LogOptions {}

/**
 * Opens the event log of the agentstate database at `path` on its own: a
 * complete `Log` (docs/contract.md §7) with `close()`. A provider opened on the same
 * file folds whatever was appended to the `state` stream here.
 */
export function openSqliteLog(path: string, options: SqliteLogOpenOptions = {}): SqliteLog {
  const log = new SqliteLog(openConnection(path, options), options);
  log.ownConnection();
  return log;
}
