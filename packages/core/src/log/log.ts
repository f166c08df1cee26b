/**
 * The log: an append-only sequence of events in named streams, with snapshots
 * stored beside it. Every log implementation honours the contract of docs/contract.md §7,
 * which the conformance suite in `@agentstate/testing` checks.
 */
import type { Instant } from '../time/instant.js';

/** Optional linkage kept verbatim on every event. */
export interface EventMeta {
  /** Who caused the event (a user, an agent, a tool). */
  actor?: string;
  /** Distributed trace id. */
  traceId?: string;
  /** Span id within the trace. */
  spanId?: string;
  /** The event or request that caused this one. */
  causationId?: string;
  /** The instance that produced the event. */
  originInstanceId?: string;
  /** The authenticated principal on whose behalf it was written. */
  principal?: string;
}

/**
 * Where a received event was first appended (docs/contract.md §12, "Sync"): kept verbatim by
 * the log. A store's own events carry none: their origin is the log's {@link Log.identity}, their
 * place their seq, their origin time their time.
 */
export interface EventOrigin {
  /** The replica id (log identity) of the store the event was first appended to. */
  origin?: string;
  /** Its seq in that store's log. */
  originSeq?: number;
  /** Its time there. */
  originTime?: Instant;
}

/** A stored event. */
export interface LogEvent<P = unknown> extends EventMeta, EventOrigin {
  /** The stream it belongs to, e.g. `state`. */
  stream: string;
  /** 1 + the number of earlier events in its stream. */
  seq: number;
  /** Event type, e.g. `session.created`. */
  type: string;
  /** When it was appended: never earlier than the time of the event before it in its stream. */
  time: Instant;
  /** Version of the payload's shape; upcasters migrate older ones on read. */
  schemaVersion: number;
  /** JSON payload. */
  payload: P;
}

/** What a caller hands to {@link Log.append}. */
export interface AppendInput<P = unknown> extends EventMeta, EventOrigin {
  stream: string;
  type: string;
  payload: P;
  /**
   * Stamped from the log's clock when absent, raised to the time of the
   * stream's event before it; a given time earlier than that is refused.
   */
  time?: Instant;
  /** 1 when absent. */
  schemaVersion?: number;
}

/** A read of one stream. */
export interface ReadQuery {
  stream: string;
  /** Only events with a greater seq. */
  afterSeq?: number;
  /** At most this many events (absent or 0: all). */
  limit?: number;
}

/** A sealed snapshot of a stream's projection at `seq`. */
export interface StoredSnapshot {
  stream: string;
  seq: number;
  /** The codec's sealed text. */
  data: string;
}

/** An append-only event log with snapshot storage. */
export interface Log {
  /**
   * The identity of this log: created once with it and never changed. A
   * stored snapshot records it, so a snapshot copied from another log is
   * never adopted (docs/contract.md §8).
   */
  identity(): Promise<string>;
  /** Appends one event and returns it as stored. A failed append consumes no seq (on a {@link gapped} stream it may leave a gap). */
  append<P>(input: AppendInput<P>): Promise<LogEvent<P>>;
  /** Events of a stream in seq order; an unknown stream is empty. */
  read(query: ReadQuery): Promise<LogEvent[]>;
  /** The highest seq of a stream (0 when empty). */
  head(stream: string): Promise<number>;
  /** Stores a snapshot, replacing one at the same `(stream, seq)`. */
  saveSnapshot(snapshot: StoredSnapshot): Promise<void>;
  /** The newest snapshot of a stream at or below `upToSeq` (default: any). */
  latestSnapshot(stream: string, options?: { upToSeq?: number }): Promise<StoredSnapshot | undefined>;
  /**
   * True when the `state` stream's seqs are positions that may skip numbers
   * (docs/contract.md §7, "Positions": PostgreSQL's parallel writers); absent,
   * they are dense and a gap is damage.
   */
  readonly gapped?: boolean;
  /**
   * For each origin of the `state` stream held, the highest origin seq held: the head for
   * the log's own identity (docs/contract.md §12). Absent: the log does not sync yet.
   */
  vector?(): Promise<Vector>;
  /**
   * The `state` events this log holds that `vector` lacks (an origin it does not name, or an
   * origin seq above its entry), in seq order, after `afterSeq` (default 0), at most `limit` (0: all).
   */
  changes?(vector: Vector, limit: number, afterSeq?: number): Promise<LogEvent[]>;
  /** The `state` event held from `origin` at `originSeq`, if any. */
  atOrigin?(origin: string, originSeq: number): Promise<LogEvent | undefined>;
}

/** What a store holds of each origin: replica id → the highest origin seq held (docs/contract.md §12). */
export type Vector = Readonly<Record<string, number>>;

/**
 * Whether an event at `seq` may follow the one at `previous` (0: none) in
 * the `state` stream of `log`: the next seq, or any later position of a
 * gapped log.
 */
export function follows(log: Pick<Log, 'gapped'>, previous: number, seq: number): boolean {
  return log.gapped === true ? seq > previous : seq === previous + 1;
}
