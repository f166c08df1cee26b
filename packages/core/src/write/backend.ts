/**
 * The seam between core and a storage backend. A backend implements only
 * these few primitives (look-ups, an atomic commit, ordered queries); core
 * builds the stores on top, so validation, stamping, scope resolution and
 * recall fusion are written once and no path bypasses them.
 */
import type { TokenMatch } from '../matching/lexical.js';
import type { Hlc } from '../time/hlc.js';
import type { MemoryItem, Scope, Session, Skill, Turn, TurnRole } from '../records/records.js';
import type { Checkpoint, CheckpointWrite } from '../records/checkpoints.js';
import type { PurgedRecords, StateChange } from '../log/events.js';
import type { AppendInput, EventMeta, Log, LogEvent, StoredSnapshot, Vector } from '../log/log.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { OperationEntry } from '../log/operation.js';
import type { Instant } from '../time/instant.js';
import type { WhereFilter } from '../records/where.js';
import type { HistoryEntry } from '../provider/history.js';

/** A value, or a promise of it: sync backends need not allocate promises. */
export type Awaitable<T> = T | Promise<T>;

/** Point look-ups the stamper needs. Tombstones are returned too. */
export interface StateLookups {
  /**
   * The session with this id. `appends`: if it is live, the write's next step is the commit of one event
   * that depends on no lock taken after this look-up, and only a stamp out of range (a clock, a counter at
   * its largest) can still refuse it; a backend that numbers events by position may take the event's
   * position here, after the session's lock (docs/contract.md §7, "Positions").
   */
  session(id: string, appends?: boolean): Awaitable<Session | undefined>;
  /** True when a turn with this id exists in any session. */
  turnExists(id: string): Awaitable<boolean>;
  /** The turn with this id (live or tombstone), in any session. */
  turn(id: string): Awaitable<Turn | undefined>;
  /** The highest turn seq of a session, tombstones included (0 when it has none). */
  lastTurnSeq(sessionId: string): Awaitable<number>;
  /** The newest `n` live turns of a session (all when `n` is 0), oldest first. */
  lastTurns(sessionId: string, n: number): Awaitable<Turn[]>;
  skill(id: string): Awaitable<Skill | undefined>;
  /** The skill (live or tombstone) at `(scope, slug)`. */
  skillAt(scope: Scope, slug: string): Awaitable<Skill | undefined>;
  /** Live skills with this slug in any scope. */
  liveSkillsBySlug(slug: string): Awaitable<Skill[]>;
  memoryItem(id: string): Awaitable<MemoryItem | undefined>;
  /** The operation of an idempotent write stored under this id (docs/contract.md §4). */
  operation(id: string): Awaitable<OperationEntry | undefined>;
  /** The live memory item of `scope` holding `key` (expired or not). */
  memoryWithKey(scope: Scope, key: string): Awaitable<MemoryItem | undefined>;
  /** Checkpoints and their writes (see {@link CheckpointQueries}). */
  readonly checkpoints: CheckpointQueries;
  /**
   * The history index (docs/contract.md §7, "History"): the seqs of the `state` events that
   * carry the session, turn, skill or memory item with this id, ascending. Derived from the
   * log in the transaction of each event, so a replay reproduces it.
   */
  recordSeqs(id: string): Awaitable<number[]>;
  /**
   * Optional: the events {@link recordSeqs} names, each beside its seq (`event` undefined
   * where the log lacks it), read in one go. A backend whose index sits beside its log
   * answers with one range read; without it, `history` reads the log run by run.
   */
  recordEvents?(id: string): Awaitable<readonly HistoryEntry[]>;
  /** The records a purge selects, tombstones included (see {@link PurgeSelector}). */
  purgeable(selector: PurgeSelector): Awaitable<PurgedRecords>;
  /**
   * Optional: the memory items and skills with these ids, tombstones included, by id (an id held by
   * none is left out), each kind in one read. A backend whose look-ups are round trips answers it:
   * a received batch then asks about its records in one read, not one or two an event.
   */
  memoryAndSkills?(ids: { readonly memory: readonly string[]; readonly skill: readonly string[] }): Promise<HeldRecords>;
}

/** What {@link StateLookups.memoryAndSkills} answers. */
export interface HeldRecords {
  memory: Map<string, MemoryItem>;
  skill: Map<string, Skill>;
}

/** What a purge removes (docs/contract.md §7, "Purge"): a record by id, a scope's subtree, or what holds a text. */
export type PurgeSelector = { id: string } | { namespace: Scope } | { matching: string };

/** Where a checkpoint is: its key. */
export interface CheckpointKey {
  threadId: string;
  namespace: string;
  checkpointId: string;
}

/**
 * What a backend answers about checkpoints (docs/contract.md §2, "Checkpoints"). The order
 * of {@link CheckpointQueries.list} is `checkpointId`, then `threadId`,
 * then `namespace`, all descending in code-point order (SQL `COLLATE
 * BINARY` / `"C"`); core filters metadata and pages on top of it.
 */
export interface CheckpointQueries {
  /** The checkpoint at this key. */
  at(key: CheckpointKey): Awaitable<Checkpoint | undefined>;
  /** The newest checkpoint (greatest `checkpointId`) of `(threadId, namespace)`. */
  latest(threadId: string, namespace: string): Awaitable<Checkpoint | undefined>;
  /** Every write against the checkpoint at `key` (whether or not it is saved), by `taskId`, then `idx`. */
  writes(key: CheckpointKey): Awaitable<CheckpointWrite[]>;
  /** True when the thread has a checkpoint or a write. */
  threadExists(threadId: string): Awaitable<boolean>;
  /**
   * Checkpoints in the order above, narrowed to a thread and namespace when
   * given, strictly after `after` in that order, at most `limit` (0: all).
   */
  list(query: { threadId?: string; namespace?: string; after?: CheckpointKey; limit: number }): Awaitable<Checkpoint[]>;
}

/**
 * What a write transaction may do: look up, and commit changes. Look-ups see
 * the changes committed earlier in the same transaction.
 */
export interface StateWriteTx extends StateLookups {
  /**
   * Appends the change to the `state` stream at the next seq and projects
   * it, atomically: either both happen or neither does. Several changes may
   * be committed in one transaction; they become durable together when
   * {@link StateBackend.write} resolves. Refused (`ClosedError`) once that
   * transaction has ended. The event's `seq` may be settled only when the
   * write resolves: a backend may take the position in the statement that
   * stores the event, sent when the transaction commits (PostgreSQL's
   * one-round-trip append), and set it then.
   */
  commit(change: StateChange, meta: EventMeta): Awaitable<LogEvent>;
  /**
   * Runs `fn` as a nested unit of the transaction: if it throws, whatever it
   * committed is undone (seqs included), the error is rethrown, and the
   * transaction stays usable for what follows. Group commit runs each queued
   * mutation in one, so one failing mutation fails alone.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Optional (a backend that syncs, docs/contract.md §12): appends events received from another
   * store, each `input` verbatim (payload, schema version, envelope, origin) at the next seq,
   * and folds each `change` (its decoded payload) as a live commit does, after checking it
   * against the fold's rules: a refused one is a `CorruptionError` naming the seq it would
   * have taken, and nothing of the batch is kept. Answers the events stored, and how many of
   * them were folded as a merge with versions written apart from them (`foldableChange`'s `onMerge`).
   */
  receive?(batch: readonly ReceivedEvent[]): Awaitable<{ stored: LogEvent[]; merged: number }>;
  /**
   * Optional (a backend that syncs): appends `inputs`, events of streams other than `state` (a receive's
   * `sync` bookkeeping), checked as the log's `append` checks them, in this transaction: they commit with it.
   */
  append?(inputs: readonly AppendInput[]): Awaitable<void>;
  /**
   * Optional (a backend that seeds, docs/contract.md §12, "A first sync into an empty store"): when
   * this transaction's store holds no `state` event and `source` is one its backend `seedsFrom`, whose
   * tables are in step with its log, appends each of `source`'s `state` events (its checksum checked)
   * as a receive appends it, as `received` makes it (see `receivedFrom`), and copies the tables
   * `source`'s fold made, in this transaction, telling `onProgress` the events taken so far as it goes.
   * Undefined, and nothing written, where it cannot: the caller then receives batch by batch.
   */
  seed?(
    source: StateBackend,
    received: (event: LogEvent, sender: string, validated: boolean) => AppendInput,
    onProgress?: (taken: number) => void,
  ): Awaitable<Seeded | undefined>;
  /**
   * Optional: the `state` events after `afterSeq` (at most `limit`) as this
   * transaction sees them. A backend whose log readers wait for writers in
   * flight (PostgreSQL's high-water mark) must offer it, or a write reading
   * the log would wait for itself; without it the log is read.
   */
  readState?(afterSeq: number, limit: number): Promise<LogEvent[]>;
}

/** What {@link StateWriteTx.seed} took. */
export interface Seeded {
  /** `state` events appended. */
  received: number;
  /** The last place taken of each origin, the source's own events under its replica id. */
  vector: Vector;
  /** The highest HLC of the changes taken. */
  maxHlc: Hlc;
}

/** A received event for {@link StateWriteTx.receive}: what to append, and its decoded change. */
export interface ReceivedEvent {
  input: AppendInput;
  change: StateChange;
  /** The JSON text of `input.payload`, made when it was copied: a log may store it as is. */
  text?: string;
}

/**
 * Where a keyset page resumes (docs/contract.md §4, "Pages"): strictly after
 * this position of the query's order. `sort` is the order's text key (a
 * session's or item's `createdAt`, a skill's `slug`); `score` is set for
 * relevance orders, which rank by score first.
 */
export interface Keyset {
  score?: number;
  sort: string;
  id: string;
}

/**
 * Which scopes a query spans: undefined `scopes` is every scope; else a
 * record matches when its scope is one of `scopes`, or, with
 * `descendantsOf`, a strict descendant of that scope.
 */
export interface ScopeFilter {
  /** Restrict to these scopes (any of them); undefined: every scope. */
  scopes?: readonly Scope[];
  /** Also the strict descendants of this scope (only with `scopes`). */
  descendantsOf?: Scope;
}

/** Lexical query handed to a backend: tokens already folded (docs/contract.md §5). */
export interface LexicalQuery extends ScopeFilter {
  /** Folded query tokens; every one must prefix-match a record token. Empty: match all. */
  tokens: readonly string[];
  /** At most this many results (0: all). */
  limit: number;
  /** `recent` (or `slug` for skills) or `relevance` (best lexical score first). */
  order: 'recent' | 'slug' | 'relevance';
  /**
   * `all` (docs/contract.md §5, the default): every token must match. `any`: at least one
   * must; only meaningful with `relevance` order, where more matching tokens
   * and rarer ones rank higher (BM25).
   */
  match?: TokenMatch;
  /** Only records after this position of `order` (with `relevance`, after `score`, then the tie-break). */
  after?: Keyset;
}

/** What narrows memory reads beyond scope and text. */
export interface MemoryFilter {
  /** Only items of these kinds; undefined: every kind. */
  kinds?: readonly string[];
  /** Never items of these kinds (what recall leaves out unless asked: working memory). */
  exceptKinds?: readonly string[];
  /** Only items whose metadata satisfies this filter (see `matching/where.ts`, the reference). */
  where?: WhereFilter;
  /** Only items not expired at this instant (`expiresAt` null or later); undefined: expired ones too. */
  now?: Instant;
}

/** A record with its lexical relevance in [0, 1]. */
export interface Scored<T> {
  record: T;
  score: number;
}

/** Ordered queries over the read model. Only live records are returned. */
export interface StateQueries extends StateLookups {
  /** Live sessions in the filter's scopes, oldest first, after `after` (`createdAt`, `id`) when given, skipping `offset`. `limit` 0: all. */
  listSessions(options: { limit: number; offset: number; after?: Keyset } & ScopeFilter): Awaitable<Session[]>;
  /** A session's live turns in seq order after `afterSeq`. `limit` 0: all. */
  turns(sessionId: string, options: { afterSeq: number; limit: number }): Awaitable<Turn[]>;
  /**
   * Live skills in exactly this scope (with `includeDescendants`, its descendants too), by slug then id,
   * after `after` (`slug`, `id`) when given. `limit` 0 or absent: all.
   */
  listSkills(scope: Scope, page?: { after?: Keyset; limit?: number; includeDescendants?: boolean }): Awaitable<Skill[]>;
  /** The distinct scopes of live sessions, skills and memory items that `prefix` prefixes (itself included), in any order. */
  liveScopes(prefix: Scope): Awaitable<Scope[]>;
  /** Live skills matching the query (slug, name, body, tags), ordered by slug then id, or by relevance. */
  searchSkills(query: LexicalQuery): Awaitable<Scored<Skill>[]>;
  /** Live memory items matching the query (content) and the filter; newest first, or by relevance. */
  searchMemory(query: LexicalQuery & MemoryFilter): Awaitable<Scored<MemoryItem>[]>;
  /** Live memory items expired at `now` (`expiresAt <= now`), at most `limit`, in no promised order. */
  expiredMemory(now: Instant, limit: number): Awaitable<MemoryItem[]>;
  /** Live turns of live sessions matching the query (content); newest first (`createdAt`, `id`), or by relevance. */
  searchTurns(query: TurnQuery): Awaitable<Scored<Turn>[]>;
  /** The live turns of a session around `seq` (that turn excluded). */
  turnNeighbours(sessionId: string, seq: number, window: { before: number; after: number }): Awaitable<TurnNeighbours>;
}

/**
 * Which turns a transcript search considers: live turns of live sessions,
 * narrowed to some sessions and roles. Sessions carry no scope yet, so core
 * resolves a scope filter itself (see `session-search.ts`) and hands
 * backends only session ids.
 */
export interface TurnFilter {
  /** Only turns of these sessions; undefined: every live session. */
  sessionIds?: readonly string[];
  /** Only turns of these roles; undefined: every role. */
  roles?: readonly TurnRole[];
}

/** Lexical query over turns' `content`; `order` is `recent` (newest first) or `relevance`. */
export type TurnQuery = Omit<LexicalQuery, 'scopes'> & TurnFilter;

/** The live turns around one turn of a session, nearest last in `before` and first in `after`. */
export interface TurnNeighbours {
  /** Up to `before` live turns preceding it, in seq order. */
  before: Turn[];
  /** Up to `after` live turns following it, in seq order. */
  after: Turn[];
}

/** Nearest-neighbour query over stored vectors. */
export interface VectorQuery extends MemoryFilter, ScopeFilter {
  embedderId: string;
  vector: Float32Array;
  /** How many neighbours at most (after the filter). */
  k: number;
}

/** Nearest-neighbour query over stored turn vectors. */
export interface TurnVectorQuery extends TurnFilter {
  embedderId: string;
  vector: Float32Array;
  /** How many neighbours at most. */
  k: number;
}

/** What vectors are derived from: a record with an id and the text that is embedded. */
export interface Embeddable {
  id: string;
  content: string;
}

/**
 * Derived vector storage, per embedder, for one target: memory items (the
 * default) or turns. A backend without it offers lexical recall (or
 * search) only.
 */
export interface VectorStore<R extends Embeddable = MemoryItem, Q = VectorQuery> {
  /** Live records that have no vector yet for this embedder (at most `limit`). */
  pending(embedderId: string, limit: number): Awaitable<R[]>;
  /** Cached vectors by content hash, for hashes that have one. */
  cached(embedderId: string, contentHashes: readonly string[]): Awaitable<Map<string, Float32Array>>;
  /**
   * Stores vectors for records still live, and caches each by content hash while its record still
   * holds that content (`holdsContent`), checked in the transaction that caches it.
   */
  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): Awaitable<void>;
  /** Live records nearest to the vector by cosine similarity, best first. */
  nearest(query: Q): Awaitable<Array<{ record: R; similarity: number }>>;
}

/** A storage backend for {@link createStateProvider}. */
export interface StateBackend {
  /** Backend name, e.g. `memory`. */
  readonly name: string;
  /** The event log, whose `state` stream this backend's tables fold. */
  readonly log: Log;
  /**
   * Runs `fn` as one exclusive write transaction: no other write of this
   * backend (in any process) interleaves, and if `fn` throws nothing is kept.
   * Resolves only once its changes are durable (the backend's COMMIT).
   */
  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T>;
  /**
   * Optional (a backend that seeds, docs/contract.md §12, "A first sync into an empty store"): whether
   * {@link StateWriteTx.seed} can take `source`'s store, another store of this backend.
   */
  seedsFrom?(source: StateBackend): boolean;
  /** Read-model queries. */
  readonly queries: StateQueries;
  /** Vector storage of memory items, when the backend has its own. */
  readonly vectors?: VectorStore;
  /** Vector storage of turns, when the backend has its own: semantic transcript search. */
  readonly turnVectors?: VectorStore<Turn, TurnVectorQuery>;
  /** The largest `updatedHlc` stored, so a reopened clock starts past it. */
  maxHlc(): Awaitable<Hlc>;
  /** The whole projection and its seq, captured in one read transaction. */
  capture(): Promise<Snapshot>;
  /**
   * Stores the rows of a snapshot captured at `seq` in one write transaction (docs/contract.md §8);
   * `false`, with nothing stored, when a `records.purged` event was appended after `seq`.
   */
  storeSnapshot(rows: readonly StoredSnapshot[], seq: number): Promise<boolean>;
  /** Releases resources. */
  close(): Promise<void>;
}
