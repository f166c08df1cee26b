/**
 * `openDatabase(target?, options?)`: the one way the faces (the `agentstate`
 * command, its inspector, the MCP server) and the adapters' path
 * conveniences open a database, so that each gets the same defaults: the
 * target from `AGENTSTATE_DB` or `.agentstate/state.db`, SQLite for a path
 * and PostgreSQL for a `postgres://` URL (its driver loaded only then), the
 * offline static embedder on both (recall is hybrid by default), the
 * snapshot key from `AGENTSTATE_SNAPSHOT_KEY` and SQLite's durability from
 * `AGENTSTATE_DURABILITY`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Embedder, Log } from '@agentstate/core';
import { ValidationError } from '@agentstate/core';
import type { PostgresOptions, PostgresProvider } from '@agentstate/postgres';
import { isPostgresUrl, splitSchema } from '@agentstate/postgres/url';
import type { Durability, SqliteOptions, SqliteProvider } from '@agentstate/sqlite';
import { DatabaseNotFoundError, IncompatibleDatabaseError, mapFileError, openSqlite, openSqliteLog, statOrNull } from '@agentstate/sqlite';
import { DATABASE_ENV, DURABILITY_ENV } from './defaults.js';
import { resolveSnapshotKey } from './snapshot-key.js';
import { resolveTarget } from './target.js';

/** An opened database: a SQLite file's provider or a PostgreSQL schema's. */
export type Database = SqliteProvider | PostgresProvider;

/** An opened log, closed by the caller. */
export type DatabaseLog = Log & { close(): Promise<void> };

/**
 * The embedder of an opened database: `'static'` (default) the offline
 * word-vector embedder of `@agentstate/embeddings`, so that recall with
 * query text is hybrid; `'none'` no embedder, so that recall is lexical and
 * an explicit semantic or hybrid recall is refused; or one of your own.
 */
export type EmbedderChoice = 'static' | 'none' | Embedder;

/** Options of {@link openDatabase}: the backend's (`clock`, `busyTimeoutMs`, `max`, …) and these. */
export interface OpenOptions extends Omit<SqliteOptions, 'embedder'>, Omit<PostgresOptions, 'embedder'> {
  /**
   * Create a missing SQLite file and its folder. Default: true. False refuses a missing file with a
   * `DatabaseNotFoundError`. A PostgreSQL schema is created when missing unless `readonly`, which refuses it with a
   * `NotFoundError` (`schema`).
   */
  create?: boolean;
  /** The embedder. Default: `'static'`. */
  embedder?: EmbedderChoice;
  /** The file of the key stored snapshots are sealed with, when no `snapshotCodec` is given. Default: the file `AGENTSTATE_SNAPSHOT_KEY` names, else none. */
  snapshotKey?: string;
  /** Where the `AGENTSTATE_*` variables are read. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** What a relative target or snapshot key path is read against. Default: `process.cwd()`. */
  cwd?: string;
}

let staticEmbedder: Promise<Embedder> | undefined;

/** The embedder `choice` names; the static one is created once per process, its package loaded on first use. */
async function embedderOf(choice: EmbedderChoice | undefined): Promise<Embedder | undefined> {
  if (choice === 'none') return undefined;
  if (choice !== undefined && choice !== 'static') return choice;
  staticEmbedder ??= import('@agentstate/embeddings').then((m) => m.createStaticEmbedder());
  return staticEmbedder;
}

/** The durability {@link DURABILITY_ENV} chooses, when set and not empty. */
function durabilityOf(env: NodeJS.ProcessEnv): Durability | undefined {
  const chosen = env[DURABILITY_ENV] || undefined;
  if (chosen === undefined || chosen === 'power-loss' || chosen === 'process-crash') return chosen;
  throw new ValidationError(DURABILITY_ENV, `must be 'power-loss' or 'process-crash', not ${JSON.stringify(chosen)}`);
}

/** Refuses a missing file unless it may be created (then makes its folder), and an empty one unless created. */
function prepare(path: string, create: boolean, readonly: boolean): void {
  if (path === ':memory:') return;
  const stat = statOrNull(path);
  if (stat === null) {
    if (!create || readonly) {
      const folder = existsSync(dirname(path)) ? '' : `: the folder ${dirname(path)} does not exist`;
      throw new DatabaseNotFoundError(
        path,
        `no agentstate database at ${path}${folder} (choose one with --db or ${DATABASE_ENV}; \`agentstate demo --db ${path}\` creates a sample)`,
      );
    }
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw mapFileError(error, dirname(path), 'create the folder');
    }
  } else if (stat.isFile() && stat.size === 0 && !create) {
    // SQLite would take it for an empty database and write a schema into it.
    throw new IncompatibleDatabaseError(path, 'empty', 'is empty (0 bytes), not a database');
  }
}

/**
 * Opens the database `target` names (see {@link resolveTarget}): the schema
 * of a PostgreSQL URL (`?schema=` or the `schema` option picks one; default
 * `agentstate`), or the
 * SQLite file at the path. A foreign or damaged database is refused unchanged.
 */
export async function openDatabase(target?: string, options: OpenOptions = {}): Promise<Database> {
  const { create = true, embedder: choice, snapshotKey, env = process.env, cwd = process.cwd(), ...rest } = options;
  const resolved = resolveTarget(target, env, cwd);
  const embedder = await embedderOf(choice);
  const snapshotCodec = rest.snapshotCodec ?? resolveSnapshotKey(snapshotKey, env, cwd)?.codec;
  if (isPostgresUrl(resolved)) {
    // Loaded on use: a SQLite user never loads the PostgreSQL driver.
    const { openPostgres } = await import('@agentstate/postgres');
    const { url, schema } = splitSchema(resolved);
    // A reader never creates: a missing schema is refused (a file is refused the same way by `prepare`).
    return openPostgres(url, { ...rest, schema: rest.schema ?? schema, embedder, snapshotCodec, create: rest.readonly !== true });
  }
  prepare(resolved, create, rest.readonly === true);
  return openSqlite(resolved, { ...rest, embedder, snapshotCodec, durability: rest.durability ?? durabilityOf(env) });
}

/** Options of {@link openLog}: those of {@link openDatabase} that concern a log. */
export type OpenLogOptions = Pick<OpenOptions, 'create' | 'readonly' | 'env' | 'cwd'>;

/**
 * Opens only the event log of the database `target` names, without folding
 * it into the tables: for reading the log (`readonly`), and for appending a
 * whole imported log before the tables are derived from it.
 */
export async function openLog(target?: string, options: OpenLogOptions = {}): Promise<DatabaseLog> {
  const { create = true, readonly = false, env = process.env, cwd = process.cwd() } = options;
  const resolved = resolveTarget(target, env, cwd);
  if (isPostgresUrl(resolved)) {
    const { openPostgresLog } = await import('@agentstate/postgres');
    const { url, schema } = splitSchema(resolved);
    return openPostgresLog(url, { schema, create: !readonly });
  }
  prepare(resolved, create, readonly);
  return openSqliteLog(resolved, { readonly, durability: durabilityOf(env) });
}
