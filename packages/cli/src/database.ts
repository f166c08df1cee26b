/**
 * Opening the database a command works on, through `openDatabase` of
 * `@agentstate/open` (the MCP server's opener too). Reading never creates
 * or changes a file: read commands open the database read-only. Only
 * commands that create make the file (and its folder); commands that change
 * records need an existing, non-empty file. A PostgreSQL schema is created
 * and migrated by whichever command that writes opens it first; a read
 * refuses a missing one. A command opens with an
 * embedder only when it may embed, so that a listing never loads one. A
 * long fold on open is told of on stderr (`foldProgress`).
 */
import type { EventSourcedProvider, Provider } from '@agentstate/core';
import type { Database, DatabaseLog, OpenOptions as DatabaseOptions } from '@agentstate/open';
import { openDatabase as open, openLog, parsePoint } from '@agentstate/open';
import type { SqliteProvider } from '@agentstate/sqlite';
import { UserError } from './errors.js';
import { io } from './io.js';
import { foldProgress } from './progress.js';

export type { Database, DatabaseLog } from '@agentstate/open';

/** `db` as a SQLite provider, for the commands that work on a file; a PostgreSQL server is a {@link UserError} naming `command`. */
export function sqliteOnly(db: Database, command: string): SqliteProvider {
  if ('schema' in db) throw new UserError(`\`agentstate ${command}\` works on SQLite files, not on a PostgreSQL server`);
  return db;
}

/**
 * How a command opens its database: as `openDatabase` of `@agentstate/open`,
 * except that a missing file is refused unless `create`, and that there is
 * no embedder unless `'static'` (for a recall or search that may embed).
 */
export type OpenOptions = Pick<DatabaseOptions, 'create' | 'readonly' | 'embedder' | 'snapshotCodec'>;

/**
 * Opens the database at `path` (a resolved `--db`): a foreign or damaged one is refused unchanged. A long
 * fold on open (see `foldProgress`) is told of on stderr.
 */
export async function openDatabase(path: string, options: OpenOptions = {}): Promise<Database> {
  const progress = foldProgress();
  let db: Database | undefined;
  try {
    db = await open(path, {
      ...options,
      create: options.create ?? false,
      embedder: options.embedder ?? 'none',
      env: io().env,
      cwd: io().cwd,
      onProgress: progress.onProgress,
    });
    return db;
  } finally {
    progress.end(db !== undefined);
  }
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

/** What a read command reads: the database, or its view at a point (`--at`, docs/contract.md §11). */
export type Reader = Provider & Pick<EventSourcedProvider, 'retention'>;

/** Runs `fn` on the database opened read-only, or on its view at `at` (a seq or an instant) when given. */
export async function withReader<T>(path: string, at: string | undefined, options: OpenOptions, fn: (reader: Reader) => Promise<T>): Promise<T> {
  return withDatabase(path, { ...options, readonly: true }, async (db) => fn(at === undefined ? db : await db.at(parsePoint(at))));
}

/** Runs `fn` on the event log alone at `path` (see `openLog` of `@agentstate/open`), opened read-only, and closes it afterwards. */
export async function withLog(path: string, fn: (log: DatabaseLog) => Promise<void>): Promise<void> {
  const log = await openLog(path, { readonly: true, create: false, env: io().env, cwd: io().cwd });
  try {
    await fn(log);
  } finally {
    await log.close();
  }
}
