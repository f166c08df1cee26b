/**
 * Opening the database a command works on: a `postgres://` URL opens a
 * schema of that server (`@agentstate/postgres`, loaded only then), any
 * other value is a SQLite file whose path comes from `resolveDatabasePath`
 * of `@agentstate/sqlite`, as the MCP server's does. Reading never creates
 * or changes a file: read commands open the database read-only. Only
 * commands that create make the file (and its folder); commands that change
 * records need an existing, non-empty file. A PostgreSQL schema is created
 * and migrated by whichever command opens it first.
 */
import { existsSync, mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Embedder, SnapshotCodec } from '@agentstate/core';
import type { Log } from '@agentstate/core';
import type { PostgresProvider } from '@agentstate/postgres';
import type { SqliteProvider } from '@agentstate/sqlite';
import { DATABASE_ENV, IncompatibleDatabaseError, mapFileError, openSqlite, openSqliteLog, resolveDurability } from '@agentstate/sqlite';
import { isPostgresUrl, splitSchema } from '@agentstate/postgres/url';
import { UserError } from './errors.js';

/** An opened database: the SQLite or PostgreSQL provider, its log and its durable operations. */
export type Database = SqliteProvider | PostgresProvider;

/** An opened log, closed by the caller. */
export type DatabaseLog = Log & { close(): Promise<void> };

/** `db` as a SQLite provider, for the commands that work on a file; a PostgreSQL server is a {@link UserError} naming `command`. */
export function sqliteOnly(db: Database, command: string): SqliteProvider {
  if ('schema' in db) throw new UserError(`\`agentstate ${command}\` works on SQLite files, not on a PostgreSQL server`);
  return db;
}

/** How to open a database. */
export interface OpenOptions {
  /** Create the file (and its folder) when missing. Default: refuse. */
  create?: boolean;
  /** Open read-only: nothing is created, migrated or written. Default: false. */
  readonly?: boolean;
  /** Enables semantic and hybrid recall. */
  embedder?: Embedder;
  /** Seals and opens stored snapshots (from the snapshot key). Default: unsealed. */
  snapshotCodec?: SnapshotCodec;
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw mapFileError(error, path, 'open');
  }
}

function prepare(path: string, options: { create?: boolean; readonly?: boolean }): void {
  const stat = statOf(path);
  if (stat === undefined) {
    if (!options.create || options.readonly) {
      const folder = existsSync(dirname(path)) ? '' : `: the folder ${dirname(path)} does not exist`;
      throw new UserError(
        `no agentstate database at ${path}${folder} (choose one with --db or ${DATABASE_ENV}; \`agentstate demo --db ${path}\` creates a sample)`,
      );
    }
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw mapFileError(error, dirname(path), 'create the folder');
    }
  } else if (stat.isFile() && stat.size === 0 && !options.create) {
    // SQLite would take it for an empty database and write a schema into it.
    throw new IncompatibleDatabaseError(path, 'empty', 'is empty (0 bytes), not a database');
  }
}

/** Opens the database at `path`: a foreign or damaged file is refused unchanged. */
export async function openDatabase(path: string, options: OpenOptions = {}): Promise<Database> {
  if (isPostgresUrl(path)) {
    const { openPostgres } = await import('@agentstate/postgres');
    const { url, schema } = splitSchema(path);
    return openPostgres(url, { schema, embedder: options.embedder, snapshotCodec: options.snapshotCodec });
  }
  prepare(path, options);
  // AGENTSTATE_DURABILITY chooses what an acknowledged write survives (the sqlite README).
  return openSqlite(path, { embedder: options.embedder, readonly: options.readonly, snapshotCodec: options.snapshotCodec, durability: resolveDurability() });
}

/**
 * Opens only the event log of the database at `path`, without folding it
 * into the tables: for reading the log (`readonly`), and for appending a
 * whole imported log before the tables are derived from it.
 */
export async function openLog(path: string, options: { create?: boolean; readonly?: boolean } = {}): Promise<DatabaseLog> {
  if (isPostgresUrl(path)) {
    const { openPostgresLog } = await import('@agentstate/postgres');
    const { url, schema } = splitSchema(path);
    return openPostgresLog(url, { schema });
  }
  prepare(path, options);
  return openSqliteLog(path, { readonly: options.readonly, durability: resolveDurability() });
}

/** Runs `fn` on the opened database and closes it afterwards, whatever happens. */
export async function withDatabase<T>(path: string, options: OpenOptions, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(path, options);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}
