/**
 * Opening the database a server serves: `--db`, else `AGENTSTATE_DB`, else
 * `.agentstate/state.db` under the working directory (as the `agentstate`
 * command does). The file and its folder are created when missing.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Embedder } from '@agentstate/core';
import { mapFileError, openSqlite, type SqliteProvider } from '@agentstate/sqlite';
import { DB_ENV, DEFAULT_DB_PATH } from '@agentstate/sqlite/defaults';
import { UsageError } from './usage-error.js';

// The same file as the `agentstate` command's: the backend decides it for both.
export { DB_ENV, DEFAULT_DB_PATH };

/** The database path: the given one, else `AGENTSTATE_DB`, else the default; absolute. */
export function resolveDbPath(path: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = path ?? (env[DB_ENV] || undefined) ?? DEFAULT_DB_PATH;
  if (chosen.trim() === '') throw new UsageError('the database path is empty');
  return resolve(chosen);
}

/**
 * Opens (creating when missing) the SQLite database at `path`. Other
 * processes may have it open too: writes queue on the file lock.
 */
export function openDatabase(path: string, embedder: Embedder | undefined): SqliteProvider {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw mapFileError(error, dirname(path), 'create the folder');
  }
  return openSqlite(path, { embedder });
}
