/**
 * @agentstate/core/backend — what a backend author needs beyond the public
 * surface of `@agentstate/core`: the storage seam (`StateBackend`) and
 * `createStateProvider`, which builds the stores on it; the stamper and the
 * write mutex; the log's shared append rules; the fold, its rules and the
 * in-memory read model; snapshot loading and binding; the record changes a
 * projection applies; lexical matching and ranking; the export line format.
 * Application code should not need this subpath.
 */
export { HLC_MAX_COUNTER, HLC_ZERO, maxHlc, HybridLogicalClock } from './time/hlc.js';
export {
  compareSessions,
  compareSkillsBySlug,
  compareSkillsByAge,
  compareMemoryNewestFirst,
  compareTurnsNewestFirst,
  compareStrings,
  compareCheckpointsNewestFirst,
  compareWrites,
} from './records/order.js';
export { copySession, copyTurn, copySkill, copyMemoryItem, copyCheckpoint, copyCheckpointWrite } from './records/copy.js';
export { parseInput } from './records/inputs.js';
export { scopeKey, descendantKeyRange } from './records/scope.js';
/** The row codec of the SQL backends: a record's projection-table row and back. */
export * as rowCodec from './records/rows.js';
export { jsonClone, canonicalJson } from './log/json.js';
export { deepFreeze } from './log/freeze.js';
export { jsonPayload, payloadJson, checkStream, toLogEvent, parseReadQuery, parseUpToSeq, checkSnapshot } from './log/append.js';
export { checkStateAppend } from './log/state-append.js';
export {
  type EventRow,
  type EventRowValues,
  type RowChecksum,
  type PreparedEvent,
  EVENT_COLUMNS,
  EVENT_ROW_COLUMNS,
  ROW_CHECKSUM_PREFIX,
  prepareEvent,
  eventRow,
  eventRowValues,
  eventRowFromValues,
  rowChecksum,
  rowPayload,
  eventFromRow,
} from './log/event-row.js';
export { type ChangeRecord, changeRecords, changeHlc, changeOperation, changeRecordIds } from './log/changes.js';
export { operationEntry } from './log/operation.js';
export { isContentPart, storedPayload } from './log/compact.js';
export { partsFromContent } from './records/parts.js';
export { type RedactedChange, redactChange } from './log/redact.js';
export { type ErasedEvent, type Erasure, type Holders, eraseEvents, eraseOperationHeads, holdersIn, storedTextForm } from './log/erasure.js';
export { type ErasableKind, type ErasableRecords, inErasedForm, jsonHolds, recordHolds } from './log/holds.js';
export { type HistoryRow, historyRows } from './log/history-index.js';
export { type HistoryEntry, type SessionAppendVersion, sessionAppendVersion, type TurnClock } from './provider/history.js';
export { checkHistoryIndex } from './verify/history.js';
export { sortSnapshot } from './snapshot/snapshot.js';
export {
  type LoadedSnapshot,
  sealedWith,
  skippedSnapshot,
  type SnapshotTrustContext,
  trustStoredSnapshot,
  loadSnapshot,
  type LoadedSnapshotHead,
  loadSnapshotHead,
  type OpenedSnapshot,
  openStoredSnapshot,
  rowsFor,
} from './snapshot/restore.js';
export {
  type SnapshotHead,
  type RowReader,
  type RowKey,
  isChunkHead,
  readHeadRows,
  storedHeadRows,
  looseChunkDigests,
  looseIndexDigests,
  storedRows,
  decodeHeadParts,
  assembleHead,
  readHeadParts,
  storedSnapshotBytes,
} from './snapshot/heads.js';
export {
  SNAPSHOT_CHUNKS_FORMAT,
  SNAPSHOT_COLLECTIONS,
  type SnapshotCollection,
  CHUNK_BOUNDARY,
  CHUNK_MAX_CHARS,
  INDEX_BOUNDARY,
  CHUNK_HEAD_PREFIX,
  CHUNK_STREAM_PREFIX,
  chunkStream,
  type ChunkKey,
  type ChunkRef,
  type ChunkIndex,
  chunkKey,
  compareChunkKeys,
  encodeChunk,
  encodeCollectionChunks,
  encodeSnapshotChunks,
  type EncodedChunks,
  encodeChunkHead,
  encodeChunkIndex,
  isChunkIndex,
  decodeChunkIndex,
  decodeChunk,
  decodeIndexChunk,
  indexDigests,
  bindSnapshotChunks,
} from './snapshot/chunks.js';
export { type SnapshotErasure, type SnapshotPatchInput, type SnapshotPatch, patchSnapshots, chunksToPatch } from './snapshot/patch.js';
export {
  SNAPSHOT_PARTS,
  PART_COLLECTIONS,
  type SnapshotPart,
  type SnapshotIndex,
  snapshotPartStream,
  STATE_SNAPSHOT_STREAMS,
  SNAPSHOT_PART_STREAMS,
  encodeSnapshotParts,
  bindSnapshotParts,
  decodeSnapshotPart,
  assembleSnapshot,
} from './snapshot/parts.js';
export {
  BOUND_SNAPSHOT_FORMAT,
  type SnapshotBinding,
  sha256Hex,
  eventDigest,
  eventAt,
  snapshotBinding,
  formatBoundSnapshot,
  bindSnapshot,
  parseBoundSnapshot,
  checkBinding,
} from './snapshot/binding.js';
export {
  foldCase,
  tokenize,
  foldForIndex,
  queryTokens,
  matchesTokens,
  matchesAnyToken,
  type TokenMatch,
  tokenMatcher,
  matchesText,
} from './matching/lexical.js';
export { type Bm25Corpus, termFrequencies, squashScore, bm25Score } from './matching/bm25.js';
export { contentHash, holdsContent } from './embedding/embedder.js';
export { combineScores, type FusedHit, fuseLegs, type LegHit, unitScore } from './embedding/fusion.js';
export type {
  Awaitable,
  StateLookups,
  PurgeSelector,
  StateWriteTx,
  CheckpointKey,
  CheckpointQueries,
  Keyset,
  LexicalQuery,
  MemoryFilter,
  ScopeFilter,
  Scored,
  StateQueries,
  TurnFilter,
  TurnQuery,
  TurnNeighbours,
  VectorQuery,
  TurnVectorQuery,
  Embeddable,
  VectorStore,
  StateBackend,
} from './write/backend.js';
export {
  type StamperContext,
  type SessionDraft,
  type TurnDraft,
  type SkillDraft,
  type MemoryDraft,
  type TurnInputDraft,
  type ReplaceSuffixDraft,
  type MemoryPatch,
  type SessionPatch,
  isExpired,
  DEFAULT_MEMORY_KIND,
  Stamper,
} from './write/stamper.js';
export { Mutex } from './write/mutex.js';
export { DEFAULT_FUSION_WEIGHTS, checkProviderOptions } from './provider/options.js';
export { createStateProvider } from './provider/state-provider.js';
export { type OperationSpec, type OperationCall, operationCall } from './provider/operations.js';
export { resolveSkill } from './provider/skill-resolution.js';
export {
  type Page,
  type KeyPart,
  type SortKey,
  type KeyPartOrder,
  type PagedQuery,
  type Pager,
  MAX_CURSOR_CHARS,
  toPage,
  compareKeys,
  openPager,
  toKeyset,
  pastKeyset,
  TEXT_ASC,
  TEXT_DESC,
  NUMBER_ASC,
  NUMBER_DESC,
} from './paging/cursor.js';
export { type FoldView, checkChange } from './in-memory/fold-rules.js';
export { skillSearchText, InMemoryState } from './in-memory/state.js';
export { InMemoryBackend } from './in-memory/backend.js';
export { type FoldOptions, type FoldResult, foldLog } from './in-memory/fold.js';
export { exportLine, type ImportedEvent, corruptionReason, parseJsonLine, checkEventLine } from './export/lines.js';
export { type ExportReadOptions, type ExportRead, ExportReader } from './export/reader.js';
export { type Trailer, type ExportDigest, trailerLine, isTrailerValue, readTrailer } from './export/trailer.js';
export {
  type VerifyPart,
  type Repair,
  type VerifyProblem,
  type VerifyReport,
  overallRepair,
  REPAIR_ADVICE,
} from './verify/report.js';
export {
  type ReplayResult,
  type ReplayCheckOptions,
  type ReplaySource,
  type CheckReplayOptions,
  REPLAY_BATCH,
  ReplayCheck,
  checkReplay,
  diffSnapshots,
  describeError,
  sha256Text,
} from './verify/replay.js';
