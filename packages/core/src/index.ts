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
  CorruptionError,
  IncompatibleDatabaseError,
  type IncompatibleReason,
  ClosedError,
  UnavailableError,
  ReadOnlyViewError,
  isAgentStateError,
} from './errors.js';
export { type Clock, systemClock, ManualClock } from './time/clock.js';
export { type Instant, formatInstant, instantToMs, isCanonicalInstant, normalizeInstant } from './time/instant.js';
export { type Hlc, compareHlc } from './time/hlc.js';
export { type Entropy, systemEntropy, seededEntropy } from './ids/entropy.js';
export { type IdGenerator, isUuidV7, uuidV7Time, UuidV7Generator } from './ids/uuidv7.js';
export {
  instantSchema,
  hlcSchema,
  scopeSchema,
  type Scope,
  envelopeSchema,
  type Envelope,
  sessionSchema,
  type Session,
  TURN_ROLES,
  type TurnRole,
  turnSchema,
  type Turn,
  skillSchema,
  type Skill,
  memoryKeySchema,
  memoryItemSchema,
  type MemoryItem,
} from './records/records.js';
export {
  checkpointNamespaceField,
  checkpointSchema,
  type Checkpoint,
  checkpointWriteSchema,
  type CheckpointWrite,
  type CheckpointTuple,
} from './records/checkpoints.js';
export {
  putCheckpointInputSchema,
  type PutCheckpointInput,
  putWritesInputSchema,
  type PutWritesInput,
  getCheckpointInputSchema,
  type GetCheckpointInput,
  listCheckpointsOptionsSchema,
  type ListCheckpointsOptions,
  deleteThreadOptionsSchema,
  type DeleteThreadOptions,
} from './records/checkpoint-inputs.js';
export {
  scopeInputSchema,
  listSkillsOptionsSchema,
  type ListSkillsOptions,
  namespacesOptionsSchema,
  type NamespacesOptions,
  createSessionInputSchema,
  type CreateSessionInput,
  appendTurnInputSchema,
  type AppendTurnInput,
  turnInputSchema,
  type TurnInput,
  replaceSuffixInputSchema,
  type ReplaceSuffixInput,
  upsertSkillInputSchema,
  type UpsertSkillInput,
  recordOutcomeInputSchema,
  type RecordOutcomeInput,
  writeMemoryInputSchema,
  type WriteMemoryInput,
  updateMemoryInputSchema,
  type UpdateMemoryInput,
  updateSessionInputSchema,
  type UpdateSessionInput,
  scopeOptionsSchema,
  type ScopeOptions,
  deleteSkillOptionsSchema,
  type DeleteSkillOptions,
  listSessionsOptionsSchema,
  type ListSessionsOptions,
  SESSION_PAGE_ORDERS,
  sessionPageOptionsSchema,
  type SessionPageOptions,
  turnsOptionsSchema,
  type TurnsOptions,
  SKILL_SEARCH_ORDERS,
  searchSkillsOptionsSchema,
  type SearchSkillsOptions,
  RECALL_MODES,
  RECALL_ORDERS,
  recallOptionsSchema,
  type RecallOptions,
  searchSessionsOptionsSchema,
  type SearchSessionsOptions,
  DEFAULT_SEARCH_CONTEXT,
  MAX_SEARCH_CONTEXT,
  DEFAULT_RECALL_LIMIT,
  writeOptionsSchema,
  type WriteOptions,
  parseInput,
} from './records/inputs.js';
export { LIMITS } from './records/limits.js';
export { isSlug, SLUG_PATTERN, SLUG_RULE } from './records/fields.js';
export {
  textPartSchema,
  reasoningPartSchema,
  toolCallPartSchema,
  toolResultPartSchema,
  filePartSchema,
  dataPartSchema,
  partSchema,
  type Part,
  type PartType,
  renderPartsText,
  partsFromContent,
} from './records/parts.js';
export {
  type WhereScalar,
  WHERE_OPERATORS,
  type WhereOperator,
  ORDERING_OPERATORS,
  type WhereCondition,
  type WhereFilter,
  whereInputSchema,
  type WhereInput,
} from './records/where.js';
export { matchesWhere } from './matching/where.js';
export { tokenize } from './matching/lexical.js';
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
  isGlobalScope,
  scopeStartsWith,
  isDescendantScope,
  scopeChain,
  compareScopes,
  describeScope,
  parseScopeText,
} from './records/scope.js';
export type { EventMeta, LogEvent, AppendInput, ReadQuery, StoredSnapshot, Log } from './log/log.js';
export { type InMemoryLogOptions, InMemoryLog } from './log/in-memory-log.js';
export {
  STATE_STREAM,
  STATE_SCHEMA_VERSION,
  EventTypes,
  type StateEventType,
  type StateChange,
  type StateChangeOf,
  sessionAfterTurn,
  RETENTION_STREAM,
  RetentionEventTypes,
  type PurgedRecords,
  purgeReasonSchema,
} from './log/events.js';
export { ERASED, eraseSession, eraseTurn, eraseSkill, eraseMemoryItem } from './log/redact.js';
export { type HistoryKind, type RecordVersion, readStateEvents } from './provider/history.js';
export { type PurgeInput, type PurgeResult, purgeInputSchema } from './provider/purge.js';
export { type OperationEntry, operationInputHash } from './log/operation.js';
export { type Upcaster, UpcasterRegistry } from './log/upcasters.js';
export { type DecodeOptions, decodeStateEvent } from './log/decode.js';
export { SNAPSHOT_FORMAT, type Snapshot, encodeSnapshot, decodeSnapshot } from './snapshot/snapshot.js';
export { SNAPSHOT_CHUNKS_FORMAT } from './snapshot/chunks.js';
export { type SnapshotCodec, SnapshotSealError, plainCodec, hmacCodec, ed25519Codec } from './snapshot/codecs.js';
export type { SkippedSnapshot } from './snapshot/restore.js';
export { storedSnapshotBytes } from './snapshot/heads.js';
export { type Embedder, cosineSimilarity } from './embedding/embedder.js';
export type { SessionStore, SkillStore, RecallHit, TurnHit, MemoryStore, CheckpointStore, Provider, EventSourcedProvider } from './provider/types.js';
export type { StateProviderOptions } from './provider/options.js';
export type { PointInput, ResolvedPoint, StateView } from './provider/time-travel.js';
export type { DiffInput, RecordDiff, StateDiff } from './provider/diff.js';
export { type SessionPageBinding, pageSessions } from './provider/session-pages.js';
export type { RetentionStore, RetentionSweep } from './provider/retention.js';
export {
  RETENTION_RECORDS,
  type RetentionRecord,
  RETENTION_ACTIONS,
  retentionPolicySchema,
  type RetentionPolicy,
  setRetentionInputSchema,
  type SetRetentionInput,
} from './records/retention.js';
export { type RecallMode, type RecallOrder, defaultRecallMode, defaultRecallOrder } from './provider/recall-defaults.js';
export { type InMemoryProviderOptions, createInMemoryProvider, type ReplayOptions, replay } from './in-memory/provider.js';
export { ExportFormatError } from './export/errors.js';
export { type ExportOptions, exportLog } from './export/write.js';
export { type VerifyPart, type Repair, type VerifyProblem, type VerifyReport, REPAIR_ADVICE } from './verify/report.js';
