/**
 * Opening the database a server serves: a `postgres://` (or
 * `postgresql://`) URL opens `@agentstate/postgres`, anything else is the
 * SQLite file at the path `resolveDatabasePath` of `@agentstate/sqlite`
 * gives (as for the `agentstate` command), created with its folder when
 * missing.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Embedder, EventSourcedProvider } from '@agentstate/core';
import { isPostgresUrl, redactUrl, splitSchema } from '@agentstate/postgres/url';
import { DATABASE_ENV, mapFileError, openSqlite, resolveDatabasePath, resolveDurability } from '@agentstate/sqlite';

/** The database `db` (or `AGENTSTATE_DB`, or the default file) names: a URL as given, a path resolved. */
export function resolveDatabase(db?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = db ?? (env[DATABASE_ENV] || undefined);
  return chosen !== undefined && isPostgresUrl(chosen) ? chosen : resolveDatabasePath(db, env);
}

/** A database for status lines: a URL without its password. */
export function describeDatabase(db: string): string {
  return isPostgresUrl(db) ? redactUrl(db) : db;
}

/**
 * Opens `db`: the schema of a PostgreSQL URL (`?schema=` picks one; default
 * `agentstate`), or the SQLite file at the path, created when missing.
 * Other processes may have it open too: SQLite writes queue on the file
 * lock, PostgreSQL writes on the stream's head row.
 */
export async function openDatabase(db: string, embedder: Embedder | undefined): Promise<EventSourcedProvider> {
  if (isPostgresUrl(db)) {
    const { openPostgres } = await import('@agentstate/postgres');
    const { url, schema } = splitSchema(db);
    return openPostgres(url, { embedder, schema });
  }
  try {
    mkdirSync(dirname(db), { recursive: true });
  } catch (error) {
    throw mapFileError(error, dirname(db), 'create the folder');
  }
  // AGENTSTATE_DURABILITY chooses what an acknowledged write survives (the sqlite README).
  return openSqlite(db, { embedder, durability: resolveDurability() });
}
