/**
 * The seam between core and a storage backend. A backend implements only
 * these few primitives (look-ups, an atomic commit, ordered queries); core
 * builds the stores on top, so validation, stamping, scope resolution and
 * recall fusion are written once and no path bypasses them.
 */
import type { TokenMatch } from '../matching/lexical.js';
import type { Hlc } from '../time/hlc.js';
import type { MemoryItem, Scope, Session, Skill, Turn } from '../records/records.js';
import type { StateChange } from '../log/events.js';
import type { EventMeta, Log, LogEvent } from '../log/log.js';
import type { Snapshot } from '../snapshot/snapshot.js';

/** A value, or a promise of it: sync backends need not allocate promises. */
export type Awaitable<T> = T | Promise<T>;

/** Point look-ups the stamper needs. Tombstones are returned too. */
export interface StateLookups {
  session(id: string): Awaitable<Session | undefined>;
  /** True when a turn with this id exists in any session. */
  turnExists(id: string): Awaitable<boolean>;
  /** The highest turn seq of a session (0 when it has none). */
  lastTurnSeq(sessionId: string): Awaitable<number>;
  skill(id: string): Awaitable<Skill | undefined>;
  /** The skill (live or tombstone) at `(scope, slug)`. */
  skillAt(scope: Scope, slug: string): Awaitable<Skill | undefined>;
  /** Live skills with this slug in any scope. */
  liveSkillsBySlug(slug: string): Awaitable<Skill[]>;
  memoryItem(id: string): Awaitable<MemoryItem | undefined>;
}

/** What a write transaction may do: look up, then commit one change. */
export interface StateWriteTx extends StateLookups {
  /**
   * Appends the change to the `state` stream and projects it, atomically:
   * either both happen or neither does.
   */
  commit(change: StateChange, meta: EventMeta): Awaitable<LogEvent>;
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

/** Lexical query handed to a backend: tokens already folded (docs/contract.md §5). */
export interface LexicalQuery {
  /** Folded query tokens; every one must prefix-match a record token. Empty: match all. */
  tokens: readonly string[];
  /** Restrict to these scopes (any of them); undefined: every scope. */
  scopes?: readonly Scope[];
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

/** A record with its lexical relevance in [0, 1]. */
export interface Scored<T> {
  record: T;
  score: number;
}

/** Ordered queries over the read model. Only live records are returned. */
export interface StateQueries extends StateLookups {
  /** Live sessions, oldest first, after `after` (`createdAt`, `id`) when given, skipping `offset`. `limit` 0: all. */
  listSessions(options: { limit: number; offset: number; after?: Keyset }): Awaitable<Session[]>;
  /** A session's turns in seq order after `afterSeq`. `limit` 0: all. */
  turns(sessionId: string, options: { afterSeq: number; limit: number }): Awaitable<Turn[]>;
  /** Live skills in exactly this scope, by slug then id, after `after` (`slug`, `id`) when given. `limit` 0 or absent: all. */
  listSkills(scope: Scope, page?: { after?: Keyset; limit?: number }): Awaitable<Skill[]>;
  /** Live skills matching the query (slug, name, body, tags), ordered by slug then id, or by relevance. */
  searchSkills(query: LexicalQuery): Awaitable<Scored<Skill>[]>;
  /** Live memory items matching the query (content) and kinds; newest first, or by relevance. */
  searchMemory(query: LexicalQuery & { kinds?: readonly string[] }): Awaitable<Scored<MemoryItem>[]>;
}

/** Nearest-neighbour query over stored vectors. */
export interface VectorQuery {
  embedderId: string;
  vector: Float32Array;
  /** How many neighbours at most. */
  k: number;
  scopes?: readonly Scope[];
  kinds?: readonly string[];
}

/**
 * Derived vector storage for memory items, per embedder. A backend without
 * it offers lexical recall only.
 */
export interface VectorStore {
  /** Live items that have no vector yet for this embedder (at most `limit`). */
  pending(embedderId: string, limit: number): Awaitable<MemoryItem[]>;
  /** Cached vectors by content hash, for hashes that have one. */
  cached(embedderId: string, contentHashes: readonly string[]): Awaitable<Map<string, Float32Array>>;
  /** Stores vectors for items (and caches them by content hash). Ignores items no longer live. */
  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): Awaitable<void>;
  /** Live items nearest to the vector by cosine similarity, best first. */
  nearest(query: VectorQuery): Awaitable<Array<{ record: MemoryItem; similarity: number }>>;
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
   */
  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T>;
  /** Read-model queries. */
  readonly queries: StateQueries;
  /** Vector storage, when the backend has its own. */
  readonly vectors?: VectorStore;
  /** The largest `updatedHlc` stored, so a reopened clock starts past it. */
  maxHlc(): Awaitable<Hlc>;
  /** The whole projection and its seq, captured in one read transaction. */
  capture(): Promise<Snapshot>;
  /** Releases resources. */
  close(): Promise<void>;
}
