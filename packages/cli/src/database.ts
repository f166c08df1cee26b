/**
 * Which database a command works on, and opening it. The path is `--db`,
 * else `AGENTSTATE_DB`, else `.agentstate/state.db` under the working
 * directory. Reading never creates a file: only commands that write do.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Embedder, SnapshotCodec } from '@agentstate/core';
import type { SqliteLog, SqliteProvider } from '@agentstate/sqlite';
import { openSqlite, openSqliteLog } from '@agentstate/sqlite';
import { DB_ENV, DEFAULT_DB_PATH } from '@agentstate/mcp';
import { UserError } from './errors.js';

// One default for the command and the MCP server it runs, so both find the same file.
export { DB_ENV, DEFAULT_DB_PATH };

/** An opened database: the SQLite provider, its log and its durable operations. */
export type Database = SqliteProvider;

/** How to open a database. */
export interface OpenOptions {
  /** Create the file (and its folder) when missing. Default: refuse. */
  create?: boolean;
  /** Enables semantic and hybrid recall. */
  embedder?: Embedder;
  /** Seals and opens stored snapshots (from the snapshot key). Default: unsealed. */
  snapshotCodec?: SnapshotCodec;
}

/** The database path: `--db`, else `AGENTSTATE_DB`, else the default. */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? (env[DB_ENV] || undefined) ?? DEFAULT_DB_PATH;
  if (chosen.trim() === '') throw new UserError('the database path is empty');
  return resolve(chosen);
}

function prepare(path: string, create: boolean | undefined): void {
  if (existsSync(path)) return;
  if (!create) {
    throw new UserError(`no agentstate database at ${path} (choose one with --db or ${DB_ENV}; \`agentstate demo --db ${path}\` creates a sample)`);
  }
  mkdirSync(dirname(path), { recursive: true });
}

/** Opens the database at `path`: a foreign or damaged file is refused unchanged. */
export async function openDatabase(path: string, options: OpenOptions = {}): Promise<Database> {
  prepare(path, options.create);
  return openSqlite(path, { embedder: options.embedder, snapshotCodec: options.snapshotCodec });
}

/**
 * Opens only the event log of the database at `path`, without folding it
 * into the tables: for reading the log, and for appending a whole imported
 * log before the tables are derived from it.
 */
export async function openLog(path: string, options: { create?: boolean } = {}): Promise<SqliteLog> {
  prepare(path, options.create);
  return openSqliteLog(path);
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
