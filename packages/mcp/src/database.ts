/**
 * Opening the database a server serves, at the path `resolveDatabasePath`
 * of `@agentstate/sqlite` gives (as for the `agentstate` command). The file
 * and its folder are created when missing.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Embedder } from '@agentstate/core';
import { mapFileError, openSqlite, type SqliteProvider } from '@agentstate/sqlite';

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
