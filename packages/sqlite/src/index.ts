/**
 * @agentstate/sqlite — the embedded default: one SQLite file holding the
 * event log and its projection, with FTS5 lexical recall, sqlite-vec
 * semantic recall, rebuilds, snapshots and safe concurrent writers.
 */
export { openSqlite, openSqliteLog } from './open.js';
export type { Durability } from './durability.js';
export type { SqliteConnectionOptions, SqliteLogOpenOptions, SqliteOptions, SqliteProvider } from './open.js';
export type { SynchronousLevel } from './connection.js';
export { eventChecksum, SqliteLog } from './log.js';
export { type EventRow, rowChecksum } from '@agentstate/core/backend';
export { importSqlite } from './import.js';
export { fileSize, occupied, statOrNull } from './file.js';
export type { ImportOptions, ImportResult, RebuildOptions, RebuildResult } from '@agentstate/core/backend';
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
export type { Repair, VerifyOptions, VerifyPart, VerifyProblem, VerifyReport } from './verify/index.js';
export { REPAIR_ADVICE } from '@agentstate/core';
export type { IncompatibleReason } from './errors.js';
export { APPLICATION_ID, DERIVED_VERSION, LOG_VERSION } from './schema/index.js';
