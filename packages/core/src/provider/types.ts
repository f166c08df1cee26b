/**
 * The public API: a {@link Provider} hands out the three stores. Every
 * backend (memory, SQLite, Postgres, a host's own) exposes exactly this.
 */
import type { RecordVersion } from './history.js';
import type { PurgeInput, PurgeResult } from './purge.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type {
  AppendTurnInput,
  CreateSessionInput,
  DeleteSkillOptions,
  ListSessionsOptions,
  ListSkillsOptions,
  NamespacesOptions,
  RecallOptions,
  RecordOutcomeInput,
  ReplaceSuffixInput,
  ScopeOptions,
  SearchSessionsOptions,
  SearchSkillsOptions,
  TurnInput,
  TurnsOptions,
  UpdateMemoryInput,
  UpdateSessionInput,
  CompactSessionInput,
  UpsertSkillInput,
  WriteMemoryInput,
  WriteOptions,
} from '../records/inputs.js';
import type { MemoryItem, Scope, Session, Skill, Turn } from '../records/records.js';
import type { ScopeInput } from '../records/scope.js';
import type { DeleteThreadOptions, GetCheckpointInput, ListCheckpointsOptions, PutCheckpointInput, PutWritesInput } from '../records/checkpoint-inputs.js';
import type { Checkpoint, CheckpointTuple, CheckpointWrite } from '../records/checkpoints.js';
import type { Log, StoredSnapshot, Vector } from '../log/log.js';
import type { ReceiveResult } from '../sync/receive.js';
import type { SyncEvent, SyncPlace } from '../sync/wire.js';
import type { Page } from '../paging/cursor.js';
import type { PointInput, StateView } from './time-travel.js';
import type { DiffInput, StateDiff } from './diff.js';
import type { RetentionStore } from './retention.js';
import type { ContextOptions, ContextWindow } from './context.js';
import type { WorkingMemoryStore } from './working-memory.js';

/** Resumable conversations with append-only transcripts. */
export interface SessionStore {
  /** Creates a session. A caller-supplied `id` must be unused (`ConflictError`). */
  create(input?: CreateSessionInput): Promise<Session>;
  /** A live session, else `NotFoundError`. */
  get(id: string): Promise<Session>;
  /** The session by id, live or a tombstone; `NotFoundError` only when it never existed. */
  getAny(id: string): Promise<Session>;
  /** Live sessions, oldest first (`createdAt`, then `id`), a {@link Page}; `scope` narrows them (see {@link ListSessionsOptions}). */
  list(options?: ListSessionsOptions): Promise<Page<Session>>;
  /** Changes a live session's title, metadata or scope (docs/contract.md §4, "Sessions"). */
  update(id: string, input: UpdateSessionInput): Promise<Session>;
  /** Sets the summary that stands in for the turns through `input.through` in {@link context} (docs/contract.md §4, "Compaction"). */
  compact(id: string, input: CompactSessionInput): Promise<Session>;
  /** Appends a turn with the next `seq`; the session must be live. */
  appendTurn(input: AppendTurnInput): Promise<Turn>;
  /** Appends `turns` in one transaction, as one `appendTurn` each would, or none (docs/contract.md §4, "Batch writes"). */
  appendTurns(sessionId: string, turns: readonly TurnInput[], options?: WriteOptions): Promise<Turn[]>;
  /** The live transcript in `seq` order (or its newest `last` turns), a {@link Page}. */
  turns(sessionId: string, options?: TurnsOptions): Promise<Page<Turn>>;
  /** Removes the newest live turn and returns its tombstone; `NotFoundError` when there is none. `operationId` makes it idempotent. */
  removeLastTurn(id: string, options?: WriteOptions): Promise<Turn>;
  /** Removes every live turn in one event and returns the tombstones; `[]` (and no event) when there are none. */
  clear(id: string, options?: WriteOptions): Promise<Turn[]>;
  /** Atomically replaces the live transcript's suffix `expected` (turn ids, oldest first) by `turns`; returns the new turns. */
  replaceSuffix(id: string, input: ReplaceSuffixInput): Promise<Turn[]>;
  /** Tombstones a live session and returns the tombstone. `operationId` makes it idempotent. */
  delete(id: string, options?: WriteOptions): Promise<Session>;
  /** Live turns of live sessions found as `memory.recall` finds items, with their neighbours (docs/contract.md §4, "Transcript search"). */
  search(options?: SearchSessionsOptions): Promise<Page<TurnHit>>;
  /** What to send a model next: the newest live turns that fit `maxTokens`, and what stands before them (docs/contract.md §4, "Context"). */
  context(sessionId: string, options: ContextOptions): Promise<ContextWindow>;
}

/** A turn found by `sessions.search`, with its session and the live turns around it. */
export interface TurnHit {
  turn: Turn;
  session: Session;
  /** 1 for a purely lexical, recency-ordered search; else the relevance in [0, 1]. */
  score: number;
  /** The live turns just before it, in seq order. */
  before: Turn[];
  /** The live turns just after it, in seq order. */
  after: Turn[];
}

/** Versioned, scoped procedures with outcome evidence. */
export interface SkillStore {
  /** Creates or updates the skill keyed by `(scope, slug)` (docs/contract.md §4, "Skills"). */
  upsert(input: UpsertSkillInput): Promise<Skill>;
  /** By id; else by slug, the most specific match along `options.scope`'s parent chain (docs/contract.md §4, "Skills"). */
  get(idOrSlug: string, options?: ScopeOptions): Promise<Skill>;
  /** The skill by id, else at exactly `(options.scope, slug)`, live or a tombstone; `NotFoundError` only when there is none. */
  getAny(idOrSlug: string, options?: ScopeOptions): Promise<Skill>;
  /** Live skills of exactly `options.scope` (or its descendants too), by slug then id; a {@link Page}. */
  list(options?: ListSkillsOptions): Promise<Page<Skill>>;
  /** Live skills matching `query` lexically (slug, name, body, tags); a {@link Page}. */
  search(query: string, limitOrOptions?: number | SearchSkillsOptions): Promise<Page<Skill>>;
  /** Atomically adds one use (and one win on success); the content `version` stays. */
  recordOutcome(idOrSlug: string, input: RecordOutcomeInput): Promise<Skill>;
  /** Tombstones the skill `get` would return (`options.scope` as there); returns the tombstone. `operationId` makes it idempotent. */
  delete(idOrSlug: string, options?: DeleteSkillOptions): Promise<Skill>;
}

/** A recalled memory item with its score in [0, 1]. */
export type RecallHit = MemoryItem & {
  /** 1 for a purely lexical, recency-ordered recall; else the fused relevance. */
  score: number;
};

/** Durable facts with provenance. */
export interface MemoryStore {
  /** Writes a fact; with a `key` a live item of the scope holds, updates that item (docs/contract.md §4, "Memory"). */
  write(input: WriteMemoryInput): Promise<MemoryItem>;
  /** Writes `inputs` in one transaction, as one `write` each would in order, or none (docs/contract.md §4, "Batch writes"). */
  writeMany(inputs: readonly WriteMemoryInput[], options?: WriteOptions): Promise<MemoryItem[]>;
  /** Changes a live, unexpired item: given fields replace the stored ones (docs/contract.md §4, "Memory"). */
  update(id: string, input: UpdateMemoryInput): Promise<MemoryItem>;
  /** A live, unexpired item, else `NotFoundError`. */
  get(id: string): Promise<MemoryItem>;
  /** The live, unexpired item of exactly `options.scope` holding `key`, else `NotFoundError`. */
  getByKey(key: string, options?: ScopeOptions): Promise<MemoryItem>;
  /** The item by id, live (expired or not) or a tombstone; `NotFoundError` only when it never existed. */
  getAny(id: string): Promise<MemoryItem>;
  /** Live, unexpired items matching the query, a {@link Page}; see {@link RecallOptions}. */
  recall(options?: RecallOptions): Promise<Page<RecallHit>>;
  /** Tombstones a live item (expired or not) and returns the tombstone. `operationId` makes it idempotent. */
  delete(id: string, options?: WriteOptions): Promise<MemoryItem>;
  /** Tombstones every expired live item, one `memory.deleted` event each; returns how many. */
  sweep(): Promise<number>;
}

/**
 * Graph checkpoints and their pending writes (docs/contract.md §2, "Checkpoints"), on the
 * same log as everything else, so export, import, replay and verify cover
 * them. The shape a LangGraph `BaseCheckpointSaver` needs, framework-neutral.
 */
export interface CheckpointStore {
  /** Saves a checkpoint under `(threadId, namespace, checkpointId)`, replacing one saved there. */
  put(input: PutCheckpointInput): Promise<Checkpoint>;
  /** Saves one task's writes against a checkpoint (saved or not yet); returns the writes stored. */
  putWrites(input: PutWritesInput): Promise<CheckpointWrite[]>;
  /** The newest checkpoint of `(threadId, namespace)`, or the one with `checkpointId`, with its pending writes; undefined when there is none. */
  get(input: GetCheckpointInput): Promise<CheckpointTuple | undefined>;
  /** Checkpoints with their pending writes, newest first (`checkpointId` descending, then `threadId`, then `namespace`); see {@link ListCheckpointsOptions}. */
  list(options?: ListCheckpointsOptions): Promise<CheckpointTuple[]>;
  /** Removes every checkpoint and write of the thread in one event; nothing (and no event) when it has none. */
  deleteThread(threadId: string, options?: DeleteThreadOptions): Promise<void>;
}

/** The persistence boundary of an agent. */
export interface Provider {
  /** Backend name, e.g. `memory` or `sqlite`. */
  readonly name: string;
  readonly sessions: SessionStore;
  readonly skills: SkillStore;
  readonly memory: MemoryStore;
  /** Each scope's pinned document, a memory item under a reserved key (docs/contract.md §4, "Working memory"). */
  readonly workingMemory: WorkingMemoryStore;
  readonly checkpoints: CheckpointStore;
  /** The distinct scopes of live records under `prefix` (docs/contract.md §4, "Namespaces"). */
  namespaces(options?: NamespacesOptions): Promise<Page<Scope>>;
  /** Releases resources. Idempotent. */
  close(): Promise<void>;
}

/** A provider whose read model is a fold of its log. */
export interface EventSourcedProvider extends Provider {
  /** The instance id written into envelopes by this provider. */
  readonly instanceId: string;
  /** The event log behind the read model. */
  readonly log: Log;
  /** Retention policies, kept in the log's `retention` stream, and their sweep (docs/contract.md §11). */
  readonly retention: RetentionStore;
  /** Captures the whole projection and its seq atomically. */
  snapshot(): Promise<Snapshot>;
  /** Captures, binds, seals and stores a snapshot in the log, in one transaction (docs/contract.md §8). */
  saveSnapshot(): Promise<StoredSnapshot>;
  /** A read-only view of the whole state at `point` (docs/contract.md §11, "Points"). */
  at(point: PointInput): Promise<StateView>;
  /** What was created, changed and deleted between two points, per record kind (docs/contract.md §11). */
  diff(input: DiffInput): Promise<StateDiff>;
  /** Every version of the record with this id, oldest first (docs/contract.md §7, "History"). */
  history(id: string): Promise<RecordVersion[]>;
  /** Erases for good what `input` selects, from the records and every event that carried them (docs/contract.md §7, "Purge"). */
  purge(input: PurgeInput): Promise<PurgeResult>;
  /** This store's replica id: its log's identity (docs/contract.md §12, "Replicas"). */
  replicaId(): Promise<string>;
  /** For each origin held, the origin seq up to which this store holds every event (docs/contract.md §12, "Vector"). */
  vector(options?: { scope?: ScopeInput }): Promise<Vector>;
  /** The events this store holds that `vector` lacks, in its seq order, in wire form (docs/contract.md §12). */
  changes(vector: Vector, options?: { limit?: number; scope?: ScopeInput; after?: SyncPlace }): Promise<SyncEvent[]>;
  /** Receives another store's events, all of the batch or none (docs/contract.md §12, "Receive"). */
  receive(events: readonly SyncEvent[], options?: { scope?: ScopeInput; covered?: Vector; from?: Vector }): Promise<ReceiveResult>;
}
