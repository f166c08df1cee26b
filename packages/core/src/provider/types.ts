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
  /**
   * The session by id, live or a tombstone (`deleted: true`); `NotFoundError`
   * only when it never existed. Lets a repeated delete answer with the tombstone.
   */
  getAny(id: string): Promise<Session>;
  /** Live sessions, oldest first (`createdAt`, then `id`), a {@link Page}; `scope` narrows them (see {@link ListSessionsOptions}). */
  list(options?: ListSessionsOptions): Promise<Page<Session>>;
  /**
   * Changes a live session's title, metadata or scope (`session.updated`):
   * given fields replace the stored ones, `metadata` as a whole. A non-zero
   * `syncVersion` must equal the stored one (`ConflictError`); an unknown or
   * deleted session is a `NotFoundError`. `operationId` makes it idempotent.
   */
  update(id: string, input: UpdateSessionInput): Promise<Session>;
  /**
   * Compacts a live session (`session.compacted`, docs/contract.md §4, "Compaction"): its `summary`
   * becomes `input.summary`, standing in for its turns through `input.through` (a live turn's id or
   * seq) in {@link context}; it replaces an earlier summary, and the transcript stays whole. An
   * unknown or deleted session, or a `through` no live turn of it has → `NotFoundError`; bad input →
   * `ValidationError`. Nothing is written then. `operationId` makes it idempotent.
   */
  compact(id: string, input: CompactSessionInput): Promise<Session>;
  /** Appends a turn with the next `seq`; the session must be live. */
  appendTurn(input: AppendTurnInput): Promise<Turn>;
  /**
   * Appends `turns` (at most `LIMITS.batch`) in one transaction, each with
   * the next `seq` and its own `turn.appended` event, exactly as one
   * `appendTurn` each would; returns them in order. A bad turn
   * (`ValidationError` on `turns.<index>.<field>`), a taken id
   * (`ConflictError` naming `turns[<index>]`) or a session that is not live
   * (`NotFoundError`) writes nothing. `operationId` makes the whole call idempotent.
   */
  appendTurns(sessionId: string, turns: readonly TurnInput[], options?: WriteOptions): Promise<Turn[]>;
  /**
   * The live transcript in `seq` order (or its newest `last` turns, oldest
   * first), a {@link Page}; unknown or deleted session → `NotFoundError`.
   */
  turns(sessionId: string, options?: TurnsOptions): Promise<Page<Turn>>;
  /** Removes the newest live turn and returns its tombstone; `NotFoundError` when there is none. `operationId` makes it idempotent. */
  removeLastTurn(id: string, options?: WriteOptions): Promise<Turn>;
  /** Removes every live turn in one event and returns the tombstones; `[]` (and no event) when there are none. */
  clear(id: string, options?: WriteOptions): Promise<Turn[]>;
  /**
   * Atomically replaces the live transcript's suffix `expected` (turn ids,
   * oldest first; `[]` appends) by `turns`, and returns the new turns.
   * `ConflictError` when the live transcript does not end with exactly `expected`.
   */
  replaceSuffix(id: string, input: ReplaceSuffixInput): Promise<Turn[]>;
  /** Tombstones a live session and returns the tombstone. `operationId` makes it idempotent. */
  delete(id: string, options?: WriteOptions): Promise<Session>;
  /**
   * Live turns of live sessions matching the query, found as `memory.recall`
   * finds items (same modes, defaults, matcher and fusion), each with its
   * session and neighbouring turns; see {@link SearchSessionsOptions}.
   * An unknown or deleted `sessionId` → `NotFoundError`.
   */
  search(options?: SearchSessionsOptions): Promise<Page<TurnHit>>;
  /**
   * What to send a model next (docs/contract.md §4, "Context"): the newest live turns that fit
   * `maxTokens` (oldest first), a tool call never apart from its result, optionally preceded by
   * the memories of the session's scope recalled for its last user turn; with a summary
   * ({@link compact}) that fits, the summary in place of the turns it covers; each entry with its
   * tokens. Appends nothing. An unknown or deleted session → `NotFoundError`; bad options →
   * `ValidationError`.
   */
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
  /**
   * Creates or updates the skill keyed by `(scope, slug)`. Omitted fields keep
   * their stored values; a non-zero `syncVersion` must equal the stored one.
   */
  upsert(input: UpsertSkillInput): Promise<Skill>;
  /**
   * By id; else by slug: with `options.scope`, the most specific match along its
   * parent chain; without one, the global skill only. A slug live only
   * outside the global scope, named without a scope, is a
   * `SkillScopeRequiredError` naming those scopes, never another scope's skill.
   */
  get(idOrSlug: string, options?: ScopeOptions): Promise<Skill>;
  /**
   * The skill by id, else the one at exactly `(options.scope, slug)` (default:
   * global), live or a tombstone (`deleted: true`); `NotFoundError` only when
   * there is none. Lets a repeated delete answer with the tombstone.
   */
  getAny(idOrSlug: string, options?: ScopeOptions): Promise<Skill>;
  /**
   * Live skills whose scope equals `options.scope` exactly (default: global), with
   * `includeDescendants` also those of its descendants, by slug then id; a {@link Page}.
   */
  list(options?: ListSkillsOptions): Promise<Page<Skill>>;
  /**
   * Live skills matching `query` lexically (slug, name, body, tags), by slug
   * then id unless `order` says otherwise, capped at `limit` when > 0; a {@link Page}.
   */
  search(query: string, limitOrOptions?: number | SearchSkillsOptions): Promise<Page<Skill>>;
  /**
   * Atomically adds one use (and one win on success) as a `skill.outcome_recorded`
   * event; the content `version` stays.
   */
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
  /**
   * Writes a fact. A caller-supplied `id` must be unused (`ConflictError`).
   * With a `key` that a live item of the scope holds (expired or not), the
   * write updates that item instead (`memory.updated`, same id and
   * `createdAt`; omitted fields keep their values, or take the defaults when
   * the holder had expired); an `id` other than the holder's is a `ConflictError`.
   */
  write(input: WriteMemoryInput): Promise<MemoryItem>;
  /**
   * Writes `inputs` (at most `LIMITS.batch`) in one transaction, each its own
   * event, exactly as one `write` each would in order (a later input with the
   * key of an earlier one updates it); returns the items in order. A bad input
   * (`ValidationError` on `inputs.<index>.<field>`) or a conflict
   * (`ConflictError` naming `inputs[<index>]`) writes nothing. `operationId`,
   * in `options` only, makes the whole call idempotent.
   */
  writeMany(inputs: readonly WriteMemoryInput[], options?: WriteOptions): Promise<MemoryItem[]>;
  /**
   * Changes a live, unexpired item (`memory.updated`): given fields replace
   * the stored ones. A non-zero `syncVersion` must equal the stored one and a
   * new `key` must be free in the item's scope (`ConflictError`).
   */
  update(id: string, input: UpdateMemoryInput): Promise<MemoryItem>;
  /** A live, unexpired item, else `NotFoundError`. */
  get(id: string): Promise<MemoryItem>;
  /**
   * The live, unexpired item of exactly `options.scope` (default: global)
   * holding `key` (keys are slots, at most one live holder per scope), else
   * `NotFoundError`. A point look-up: lets an adapter keyed by `(scope, key)`
   * read without scanning a recall.
   */
  getByKey(key: string, options?: ScopeOptions): Promise<MemoryItem>;
  /**
   * The item by id, live (expired or not) or a tombstone (`deleted: true`);
   * `NotFoundError` only when it never existed. Lets a repeated delete answer with the tombstone.
   */
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
  /**
   * Saves a checkpoint under `(threadId, namespace, checkpointId)`; saving
   * under a taken key replaces it (same `id` and `createdAt`, the next `syncVersion`).
   */
  put(input: PutCheckpointInput): Promise<Checkpoint>;
  /**
   * Saves one task's writes against a checkpoint (saved or not yet). A write
   * at a non-negative `idx` the task already has is ignored; one at a
   * negative `idx` replaces. Returns the writes stored; `[]` (and no event) when none.
   */
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
  /**
   * The distinct scopes of live sessions, skills and memory items under
   * `prefix` (itself included), each truncated to `maxDepth` labels,
   * deduplicated, in label-by-label code-point order.
   */
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
  /**
   * Captures, binds to the log (docs/contract.md §8), seals with the provider's codec, and stores a snapshot
   * in the log, all its rows in one transaction. A purge appended after the capture makes it capture again;
   * a `ConflictError` (retryable) when purges keep coming, with nothing stored.
   */
  saveSnapshot(): Promise<StoredSnapshot>;
  /**
   * A read-only view of the whole state as a replay of the log cut at
   * `point` reads it (docs/contract.md §11): `{ seq }` (0 to the head), or
   * `{ time }` (the last event at or before that instant). Folded from the
   * nearest snapshot at or below the point plus the events after it.
   */
  at(point: PointInput): Promise<StateView>;
  /** What was created, changed and deleted between two points, per record kind (docs/contract.md §11). */
  diff(input: DiffInput): Promise<StateDiff>;
  /**
   * Every version of the session, turn, skill or memory item with this id, oldest first, each
   * with the event that wrote it (docs/contract.md §7, "History"); `[]` for an unknown id.
   */
  history(id: string): Promise<RecordVersion[]>;
  /**
   * Erases for good what `input` selects (docs/contract.md §7, "Purge"): the records become
   * content-free tombstones, every earlier event that carried them is rewritten in place,
   * and their full-text rows, vectors, cached embeddings and the snapshots holding them go.
   * Backups and exports made before cannot be reached.
   */
  purge(input: PurgeInput): Promise<PurgeResult>;
  /**
   * This store's replica id: its log's identity (docs/contract.md §12). A byte copy of the
   * store is the same replica; a store synced into is a new one.
   */
  replicaId(): Promise<string>;
  /**
   * For each origin held, the origin seq up to which this store holds every event (this replica's
   * own: its head); with `scope`, every event lying in that subtree.
   */
  vector(options?: { scope?: ScopeInput }): Promise<Vector>;
  /**
   * The events this store holds that `vector` lacks, in its seq order, at most `limit` (default:
   * all), in wire form; with `scope`, only those lying in that subtree; with `after`, only those
   * held after the event at that place.
   */
  changes(vector: Vector, options?: { limit?: number; scope?: ScopeInput; after?: SyncPlace }): Promise<SyncEvent[]>;
  /**
   * Receives another store's events: checked whole, those held skipped, the rest appended and
   * folded in one transaction, or nothing (`SyncConflictError`, `ValidationError`). With
   * `scope`, an event outside that subtree refuses the batch; with `covered`, the store notes
   * that it now holds every event lying in the subtree up to that vector (a finished sync's word);
   * `from` says after which origin seq each origin's events start (an origin unnamed: where the store stands),
   * and a batch starting past what the store holds is a `SyncConflictError` (`order`).
   */
  receive(events: readonly SyncEvent[], options?: { scope?: ScopeInput; covered?: Vector; from?: Vector }): Promise<ReceiveResult>;
}
