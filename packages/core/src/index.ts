/**
 * @agentstate/core — what application code needs: the records and their
 * input schemas, the errors, the clocks and ids you can inject, the provider
 * types, the in-memory provider and `replay`, the log's public shape and
 * event types, snapshot codecs, the embedder interface and the export format.
 *
 * What backend authors need (the stamper, the fold and its rules, log
 * internals, the storage seam) is in `@agentstate/core/backend`.
 */
export {
  type ErrorCode,
  AgentStateError,
  NotFoundError,
  SkillScopeRequiredError,
  ConflictError,
  OperationConflictError,
  ValidationError,
  TokenLimitError,
  CorruptionError,
  ExportFormatError,
  IncompatibleDatabaseError,
  type IncompatibleReason,
  ClosedError,
  UnavailableError,
  ReadOnlyViewError,
  SyncConflictError,
  SyncHttpError,
  isAgentStateError,
} from './errors.js';
export { type Clock, systemClock, ManualClock } from './time/clock.js';
export { formatInstant, instantToMs, isCanonicalInstant, normalizeInstant } from './time/instant.js';
export { type Hlc, compareHlc } from './time/hlc.js';
export { type Entropy, systemEntropy, seededEntropy } from './ids/entropy.js';
export { type IdGenerator, isUuidV7, uuidV7Time, UuidV7Generator } from './ids/uuidv7.js';
export { memoryId, skillId } from './ids/key-id.js';
export {
  type Scope,
  type Envelope,
  sessionSchema,
  sessionSummarySchema,
  type SessionSummary,
  type Session,
  TURN_ROLES,
  type TurnRole,
  turnSchema,
  type Turn,
  skillSchema,
  type Skill,
  memoryItemSchema,
  type MemoryItem,
} from './records/records.js';
export type { Checkpoint, CheckpointWrite, CheckpointTuple } from './records/checkpoints.js';
export {
  scopeInputSchema,
  namespacesOptionsSchema,
  createSessionInputSchema,
  type CreateSessionInput,
  appendTurnInputSchema,
  type AppendTurnInput,
  turnInputSchema,
  type TurnInput,
  replaceSuffixInputSchema,
  upsertSkillInputSchema,
  type UpsertSkillInput,
  writeMemoryInputSchema,
  type WriteMemoryInput,
  updateMemoryInputSchema,
  type UpdateMemoryInput,
  updateSessionInputSchema,
  type UpdateSessionInput,
  compactSessionInputSchema,
  type CompactSessionInput,
  type SessionPageOptions,
  SESSION_PAGE_ORDERS,
  SKILL_SEARCH_ORDERS,
  RECALL_MODES,
  RECALL_ORDERS,
  recallOptionsSchema,
  type RecallOptions,
  searchSessionsOptionsSchema,
  type SearchSessionsOptions,
  DEFAULT_SEARCH_CONTEXT,
  DEFAULT_RECALL_LIMIT,
  writeOptionsSchema,
  parseInput,
} from './records/inputs.js';
export { LIMITS } from './records/limits.js';
export { isSlug, SLUG_PATTERN, SLUG_RULE } from './records/fields.js';
export { partSchema, type Part, renderPartsText, partsFromContent } from './records/parts.js';
export { type WhereScalar, type WhereCondition, type WhereFilter, whereInputSchema, type WhereInput } from './records/where.js';
export { matchesWhere } from './matching/where.js';
export { TOKEN_MATCHES, tokenize, type TokenMatch } from './matching/lexical.js';
export { canonicalJson } from './log/json.js';
export type { Page } from './paging/cursor.js';
export type { JsonObject, JsonValue } from './records/json.js';
export {
  GLOBAL_SCOPE,
  type LegacyScope,
  type ScopeInput,
  legacyScope,
  toScope,
  sameScope,
  scopeStartsWith,
  isDescendantScope,
  scopeChain,
  compareScopes,
  describeScope,
  parseScopeText,
} from './records/scope.js';
export type { EventMeta, EventOrigin, LogEvent, AppendInput, ReadQuery, StoredSnapshot, Log, Vector } from './log/log.js';
export { type SyncEvent, type SyncPlace, syncDigest, toSyncEvent } from './sync/wire.js';
export { SYNC_STREAM, SyncEventTypes, syncScope } from './sync/scope.js';
export type { ReceiveResult } from './sync/receive.js';
export { type SyncOptions, type SyncPeer, type SyncStart, type SyncStarted, type SyncSummary, startSync, sync, SYNC_BATCH } from './sync/sync.js';
export { type HttpPeerOptions, httpPeer, SYNC_PATH, SYNC_ROUTES, type SyncRoute, SYNC_MAX_BODY, syncErrorAnswer } from './sync/http.js';
export { InMemoryLog } from './log/in-memory-log.js';
export {
  STATE_STREAM,
  STATE_SCHEMA_VERSION,
  EventTypes,
  type StateChange,
  type StateChangeOf,
  sessionAfterTurn,
  RETENTION_STREAM,
  type PurgedRecords,
  purgeReasonSchema,
} from './log/events.js';
export { ERASED, eraseSession, eraseTurn, eraseSkill, eraseMemoryItem } from './log/redact.js';
export { type HistoryKind, type RecordVersion, readStateEvents } from './provider/history.js';
export type { PurgeInput } from './provider/purge.js';
export { type OperationEntry, operationInputHash } from './log/operation.js';
export { UpcasterRegistry } from './log/upcasters.js';
export { decodeStateEvent } from './log/decode.js';
export { type Snapshot, encodeSnapshot, decodeSnapshot } from './snapshot/snapshot.js';
export { SNAPSHOT_CHUNKS_FORMAT } from './snapshot/chunks.js';
export { type SnapshotCodec, SnapshotSealError, plainCodec, hmacCodec, ed25519Codec } from './snapshot/codecs.js';
export type { SkippedSnapshot } from './snapshot/restore.js';
export { storedSnapshotBytes } from './snapshot/heads.js';
export { type Embedder, cosineSimilarity } from './embedding/embedder.js';
export type { RecallHit, TurnHit, MemoryStore, Provider, EventSourcedProvider } from './provider/types.js';
export type { StateProviderOptions } from './provider/options.js';
export type { ContextEntry, ContextOptions, ContextWindow } from './provider/context.js';
export {
  type CompactionPolicy,
  compactWhenOver,
  SUMMARY_HEADING,
  SUMMARY_INSTRUCTIONS,
  type SummarizeInput,
} from './provider/compaction-policy.js';
export {
  DEFAULT_WORKING_MEMORY_TOKENS,
  type PatchWorkingMemoryInput,
  type ReplaceWorkingMemoryInput,
  WORKING_MEMORY,
  type WorkingMemoryStore,
} from './provider/working-memory.js';
export { defaultTokenCounter, type NamedTokenCounter, type TokenCounter, turnTokenText } from './provider/tokens.js';
export type { PointInput, StateView } from './provider/time-travel.js';
export { transcriptChange } from './provider/transcript-change.js';
export type { RecordDiff, StateDiff } from './provider/diff.js';
export { pageSessions } from './provider/session-pages.js';
export { type PolicyChange, RETENTION_RECORDS, RETENTION_ACTIONS, type RetentionPolicy, setRetentionInputSchema } from './records/retention.js';
export type { PolicyMerge } from './provider/retention.js';
export { type RecallMode, type RecallOrder, defaultRecallMode, defaultRecallOrder } from './provider/recall-defaults.js';
export { createInMemoryProvider, type ReplayOptions, replay } from './in-memory/provider.js';
export { type ExportOptions, exportLog } from './export/write.js';
export { type VerifyPart, type Repair, type VerifyProblem, type VerifyReport, REPAIR_ADVICE } from './verify/report.js';
