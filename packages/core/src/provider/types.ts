/**
 * The public API: a {@link Provider} hands out the three stores. Every
 * backend (memory, SQLite, Postgres, a host's own) exposes exactly this.
 */
import type { Snapshot } from '../snapshot/snapshot.js';
import type {
  AppendTurnInput,
  CreateSessionInput,
  ListSessionsOptions,
  ListSkillsOptions,
  RecallOptions,
  RecordOutcomeInput,
  SearchSkillsOptions,
  TurnsOptions,
  UpsertSkillInput,
  WriteMemoryInput,
} from '../records/inputs.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import type { ScopeInput } from '../records/scope.js';
import type { Log, StoredSnapshot } from '../log/log.js';
import type { Page } from '../paging/cursor.js';

/** Resumable conversations with append-only transcripts. */
export interface SessionStore {
  /** Creates a session. A caller-supplied `id` must be unused (`ConflictError`). */
  create(input?: CreateSessionInput): Promise<Session>;
  /** A live session, else `NotFoundError`. */
  get(id: string): Promise<Session>;
  /** Live sessions, oldest first (`createdAt`, then `id`); a {@link Page}. */
  list(options?: ListSessionsOptions): Promise<Page<Session>>;
  /** Appends a turn with the next `seq`; the session must be live. */
  appendTurn(input: AppendTurnInput): Promise<Turn>;
  /** The transcript in `seq` order, a {@link Page}; unknown or deleted session → `NotFoundError`. */
  turns(sessionId: string, options?: TurnsOptions): Promise<Page<Turn>>;
  /** Tombstones a live session and returns the tombstone. */
  delete(id: string): Promise<Session>;
}

/** Versioned, scoped procedures with outcome evidence. */
export interface SkillStore {
  /**
   * Creates or updates the skill keyed by `(scope, slug)`. Omitted fields keep
   * their stored values; a non-zero `syncVersion` must equal the stored one.
   */
  upsert(input: UpsertSkillInput): Promise<Skill>;
  /**
   * By id; else by slug: with a scope, the most specific match along its
   * parent chain; without one, the global skill, else the oldest.
   */
  get(idOrSlug: string, scope?: ScopeInput): Promise<Skill>;
  /** Live skills whose scope equals `scope` exactly (default: global), by slug then id; a {@link Page}. */
  list(scope?: ScopeInput, options?: ListSkillsOptions): Promise<Page<Skill>>;
  /**
   * Live skills matching `query` lexically (slug, name, body, tags), by slug
   * then id unless `order` says otherwise, capped at `limit` when > 0; a {@link Page}.
   */
  search(query: string, limitOrOptions?: number | SearchSkillsOptions): Promise<Page<Skill>>;
  /** Atomically adds one use (and one win on success); the content `version` stays. */
  recordOutcome(idOrSlug: string, input: RecordOutcomeInput): Promise<Skill>;
  /** Tombstones the skill `get` would return; returns the tombstone. */
  delete(idOrSlug: string, scope?: ScopeInput): Promise<Skill>;
}

/** A recalled memory item with its score in [0, 1]. */
export type RecallHit = MemoryItem & {
  /** 1 for a purely lexical, recency-ordered recall; else the fused relevance. */
  score: number;
};

/** Durable facts with provenance. */
export interface MemoryStore {
  /** Writes a fact. A caller-supplied `id` must be unused (`ConflictError`). */
  write(input: WriteMemoryInput): Promise<MemoryItem>;
  /** A live item, else `NotFoundError`. */
  get(id: string): Promise<MemoryItem>;
  /** Live items matching the query, a {@link Page}; see {@link RecallOptions}. */
  recall(options?: RecallOptions): Promise<Page<RecallHit>>;
  /** Tombstones a live item and returns the tombstone. */
  delete(id: string): Promise<MemoryItem>;
}

/** The persistence boundary of an agent. */
export interface Provider {
  /** Backend name, e.g. `memory` or `sqlite`. */
  readonly name: string;
  readonly sessions: SessionStore;
  readonly skills: SkillStore;
  readonly memory: MemoryStore;
  /** Releases resources. Idempotent. */
  close(): Promise<void>;
}

/** A provider whose read model is a fold of its log. */
export interface EventSourcedProvider extends Provider {
  /** The instance id written into envelopes by this provider. */
  readonly instanceId: string;
  /** The event log behind the read model. */
  readonly log: Log;
  /** Captures the whole projection and its seq atomically. */
  snapshot(): Promise<Snapshot>;
  /** Captures, binds to the log (docs/contract.md §8), seals with the provider's codec, and stores a snapshot in the log. */
  saveSnapshot(): Promise<StoredSnapshot>;
}
