/**
 * @agentstate/core/backend — what the backends (`@agentstate/sqlite`,
 * `@agentstate/postgres`) and their conformance kit (`@agentstate/testing`)
 * import beyond `@agentstate/core`, and nothing more: the storage seam
 * (`StateBackend`) and `createStateProvider`, which builds the stores on it;
 * the log's shared append rules and row format; the fold, its rules and the
 * read model it folds into; snapshot loading, binding and erasure; the
 * record changes a projection applies; lexical matching and scoring; replay
 * checks. Faces and adapters never import it: a rule in `biome.json` keeps
 * them to the public entry.
 */
export { HLC_ZERO, maxHlc } from './time/hlc.js';
export { compareSkillsBySlug, compareMemoryNewestFirst, compareStrings } from './records/order.js';
export { scopeKey, descendantKeyRange, matchesNoScope, scopeFilter } from './records/scope.js';
export { turnFilter } from './in-memory/queries.js';
export { checkStream, parseReadQuery, parseUpToSeq, checkSnapshot } from './log/append.js';
/** The row codec of the SQL backends: a record's projection-table row and back. */
export * as rowCodec from './records/rows.js';
export {
  type EventRow,
  type EventRowValues,
  EVENT_COLUMNS,
  prepareEvent,
  prepareUnplaced,
  type UnplacedEvent,
  eventRowFromValues,
  rowChecksum,
  storedChecksum,
  unplacedDigest,
  placedChecksum,
  rowPayload,
  eventFromRow,
} from './log/event-row.js';
export { type ChangeRecord, changeRecords, changeHlc, changeRecordIds } from './log/changes.js';
export { operationEntry } from './log/operation.js';
export { storedPayload } from './log/compact.js';
export { storedTextForm } from './log/erasure.js';
export { historyRows } from './log/history-index.js';
export { sortSnapshot } from './snapshot/snapshot.js';
export { type LoadedSnapshot, loadSnapshot } from './snapshot/restore.js';
export { storedHeadRows, looseChunkDigests, looseIndexDigests } from './snapshot/heads.js';
export { CHUNK_MAX_CHARS, CHUNK_STREAM_PREFIX, chunkStream, encodeChunk, encodeSnapshotChunks, ofOtherFormat } from './snapshot/chunks.js';
export { type SnapshotErasure, type SnapshotPatch, patchSnapshots, chunksToPatch } from './snapshot/patch.js';
export { sha256Hex, eventDigest, snapshotBinding, formatBoundSnapshot, parseBoundSnapshot } from './snapshot/binding.js';
export { type TokenMatch, matchesText, matchesTokensOf, foldForIndex } from './matching/lexical.js';
export { squashScore, rankByBm25 } from './matching/bm25.js';
export { contentHash, holdsContent, nearestFirst } from './embedding/embedder.js';
export type {
  StateLookups,
  StateWriteTx,
  ReceivedEvent,
  Seeded,
  CheckpointKey,
  CheckpointQueries,
  LexicalQuery,
  MemoryFilter,
  ScopeFilter,
  Scored,
  StateQueries,
  TurnQuery,
  VectorQuery,
  TurnVectorQuery,
  Embeddable,
  VectorStore,
  StateBackend,
} from './write/backend.js';
export { Mutex } from './write/mutex.js';
export { createStateProvider } from './provider/state-provider.js';
export { pastKeyset } from './paging/cursor.js';
export { type FoldView, checkChange } from './fold/fold-rules.js';
export { foldableChange } from './fold/merge-records.js';
export { turnInsertion } from './fold/merge-turns.js';
export { skillSearchText, InMemoryState } from './fold/state.js';
export { foldLog } from './fold/fold.js';
export { exportLine } from './export/lines.js';
export { type ExportRead, ExportReader } from './export/reader.js';
export { listed } from './verify/report.js';
export { Params, type SqlDialect, memoryRowFilter, checkMetadataIndex } from './sql/metadata.js';
export { checkpointPageSql } from './sql/checkpoints.js';
export { recordFilter, scopeCondition, turnWhere } from './sql/filters.js';
export { verifyReport } from './sql/verify.js';
export { type PurgeSql, eraseHistory, purgeableRows } from './sql/purge.js';
export { verifiedPages } from './sql/pages.js';
export type { ImportOptions, ImportResult, LogOptions, RebuildOptions, RebuildResult, VerifyOptions } from './sql/options.js';
export { checkImported } from './sql/options.js';
export { type ReplaySource, checkReplay, describeError } from './verify/replay.js';
export { lacks } from './log/vector.js';
