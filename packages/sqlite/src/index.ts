/**
 * @agentstate/sqlite — the embedded default: one SQLite file holding the
 * event log and its projection, with FTS5 lexical recall, sqlite-vec
 * semantic recall, rebuilds, snapshots and safe concurrent writers.
 */
export { openSqlite, openSqliteLog } from './open.js';
export { DB_ENV, DEFAULT_DB_PATH } from './defaults.js';
export type { SqliteConnectionOptions, SqliteLogOpenOptions, SqliteOptions, SqliteProvider } from './open.js';
export type { SynchronousLevel } from './connection.js';
export { eventChecksum, SqliteLog } from './log.js';
export type { RebuildOptions, RebuildResult } from './rebuild.js';
export {
  DatabaseNotFoundError,
  DiskFullError,
  IncompatibleDatabaseError,
  mapFileError,
  mapSqliteError,
  NotAFileError,
  PermissionDeniedError,
  ReadOnlyError,
  StorageError,
  StorageIoError,
} from './errors.js';
export type { IncompatibleReason } from './errors.js';
export { APPLICATION_ID, SCHEMA_VERSION } from './migrations/index.js';
