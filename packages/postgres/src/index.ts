/**
 * @agentstate/postgres — agentstate on PostgreSQL: the event log and its
 * projection in one schema, shared by every process that opens it, with
 * dense, gap-free seqs committed in order, lexical recall on full-text
 * search and vector recall on pgvector's HNSW indexes or exactly.
 */
export { DEFAULT_SCHEMA, openPostgres, openPostgresLog } from './open.js';
export type { PostgresConnectionOptions, PostgresLogOpenOptions, PostgresOptions, PostgresProvider } from './open.js';
export type { PoolOptions } from './database.js';
export type { VectorIndexChoice } from './vectors.js';
export { PostgresLog } from './log.js';
export { type EventRow, rowChecksum } from '@agentstate/core/backend';
export { ConnectionLostError, IncompatibleDatabaseError, mapPgError, ServerStorageError, StatementTimeoutError } from './errors.js';
export type { IncompatibleReason } from './errors.js';
export { EVENTS_CHANNEL, LISTENERS_LOCK_KEY, listenSql } from './subscribe.js';
export type { SubscribeOptions, Subscription } from './subscribe.js';
export { importPostgres } from './import.js';
export type { PostgresImportOptions } from './import.js';
export type { ImportResult, RebuildOptions, RebuildResult, VerifyOptions } from '@agentstate/core/backend';
export { POSTGRES_ERASURE_STEPS } from './compact.js';
export type { PostgresCompactResult } from './compact.js';
export { REPAIR_ADVICE } from '@agentstate/core';
export type { Repair, VerifyPart, VerifyProblem, VerifyReport } from '@agentstate/core';
