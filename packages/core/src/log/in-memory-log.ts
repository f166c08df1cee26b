/** An in-memory {@link Log}: the reference implementation and the test double of choice. */
import { ValidationError } from '../errors.js';
import { systemEntropy } from '../ids/entropy.js';
import { entryFor } from '../map-entry.js';
import { type Clock, systemClock } from '../time/clock.js';
import { formatInstant } from '../time/instant.js';
import { checkSnapshot, checkStream, jsonPayload, parseReadQuery, parseUpToSeq, toLogEvent } from './append.js';
import { STATE_STREAM } from './events.js';
import type { AppendInput, Log, LogEvent, ReadQuery, StoredSnapshot, Vector } from './log.js';
import { lacks } from './vector.js';
import { checkStateAppend } from './state-append.js';
import { dropSnapshots, rewriteEventPayload, snapshotRows, storeSnapshotRows, trustedAppend, trustedRead } from './trusted.js';
import type { UpcasterRegistry } from './upcasters.js';

/** Options of {@link InMemoryLog}. */
export interface InMemoryLogOptions {
  /** Stamps `time` on events appended without one. */
  clock?: Clock;
  /**
   * The log's identity ({@link Log.identity}). Default: 128 random bits from
   * the OS, never from a provider's seeded entropy, so seeding ids does not
   * depend on whether the log draws bytes first. Give one for reproducible
   * stored snapshots.
   */
  identity?: string;
  /** Lets `state` events of older schema versions be checked on append, as a fold will read them. */
  upcasters?: UpcasterRegistry;
}

/** 128 random bits as hex: the default identity of a new log. */
function newIdentity(): string {
  const bytes = new Uint8Array(16);
  systemEntropy(bytes);
  return Buffer.from(bytes).toString('hex');
}

/**
 * A {@link Log} held in process memory. Stored events are deep-frozen and
 * shared with readers: history cannot be changed through what `read` returns,
 * and reading costs no copy. An append to the `state` stream is refused with
 * a `ValidationError` unless the decoder will read it.
 */
export class InMemoryLog implements Log {
  readonly #streams = new Map<string, LogEvent[]>();
  readonly #snapshots = new Map<string, Map<number, StoredSnapshot>>();
  readonly #clock: Clock;
  readonly #identity: string;
  readonly #upcasters: UpcasterRegistry | undefined;
  /** Received `state` events by origin: origin seq → seq (docs/contract.md §12). */
  readonly #origins = new Map<string, Map<number, number> & { highest: number }>();
  /** The seq of the last `state` event of this log's own (0: none). */
  #ownLast = 0;

  constructor(options: InMemoryLogOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    if (options.identity !== undefined && (typeof options.identity !== 'string' || options.identity === '')) {
      throw new ValidationError('identity', 'must be a non-empty string');
    }
    this.#identity = options.identity ?? newIdentity();
    this.#upcasters = options.upcasters;
  }

  async identity(): Promise<string> {
    return this.#identity;
  }

  async append<P>(input: AppendInput<P>): Promise<LogEvent<P>> {
    // The payload is copied, so a caller's later change to its object never reaches history.
    return this.#store(typeof input !== 'object' || input === null ? input : { ...input, payload: jsonPayload(input.payload) }, true);
  }

  /**
   * @internal The in-memory backend's append of payloads the stamper built:
   * not checked again, and frozen only when first read, since nothing but
   * the read model (which never changes a record in place) holds them until then.
   */
  [trustedAppend]<P>(input: AppendInput<P>): LogEvent<P> {
    return this.#store(input, false);
  }

  /** @internal A purge's rewrite of the payload of the event at `seq` (same type, envelope and seq). */
  [rewriteEventPayload](stream: string, seq: number, payload: unknown): void {
    const events = this.#streams.get(stream);
    const event = events?.[seq - 1];
    if (!events || !event) throw new ValidationError('seq', `the ${stream} stream has no event at seq ${seq}`);
    events[seq - 1] = deepFreeze({ ...event, payload: jsonPayload(payload) }) as LogEvent;
  }

  /** @internal A save's or a purge's removal of every stored snapshot row `drop` selects. */
  [dropSnapshots](drop: (row: StoredSnapshot) => boolean): void {
    for (const byStream of this.#snapshots.values()) for (const [seq, row] of byStream) if (drop(row)) byStream.delete(seq);
  }

  /** @internal A purge's read of every stored snapshot of `stream`, in seq order. */
  [snapshotRows](stream: string): StoredSnapshot[] {
    return [...(this.#snapshots.get(stream)?.values() ?? [])].sort((a, b) => a.seq - b.seq);
  }

  #store<P>(input: AppendInput<P>, check: boolean): LogEvent<P> {
    const events = this.#streams.get(input?.stream) ?? [];
    const event = toLogEvent(
      input,
      events.length + 1,
      () => formatInstant(this.#clock.now()),
      () => events.at(-1)?.time,
    );
    if (check) {
      checkStateAppend(event, this.#upcasters);
      deepFreeze(event);
    }
    if (events.length === 0) this.#streams.set(event.stream, events);
    events.push(event as LogEvent);
    if (event.origin !== undefined && event.stream === STATE_STREAM) {
      const places = entryFor(this.#origins, event.origin, () => Object.assign(new Map<number, number>(), { highest: 0 }));
      places.set(event.originSeq!, event.seq);
      places.highest = Math.max(places.highest, event.originSeq!);
    } else if (event.stream === STATE_STREAM) this.#ownLast = event.seq;
    return event;
  }

  async vector(): Promise<Vector> {
    const vector: Record<string, number> = { [this.#identity]: this.#streams.get(STATE_STREAM)?.length ?? 0 };
    for (const [origin, places] of this.#origins) vector[origin] = places.highest;
    return vector;
  }

  async changes(vector: Vector, limit: number, afterSeq = 0): Promise<LogEvent[]> {
    const events = this.#streams.get(STATE_STREAM) ?? [];
    const out: LogEvent[] = [];
    for (let i = Math.max(afterSeq, this.#firstLacking(vector)); i < events.length && (limit === 0 || out.length < limit); i += 1) {
      const event = events[i]!;
      if (lacks(vector, event.origin ?? this.#identity, event.originSeq ?? event.seq)) out.push(deepFreeze(event));
    }
    return out;
  }

  /**
   * The seq before the first `state` event `vector` lacks (the head when it lacks none), so an answer reads
   * no event a store already holds: a vector lacking one new event costs a look at each origin, not a scan.
   */
  #firstLacking(vector: Vector): number {
    const held = (origin: string) => (Object.hasOwn(vector, origin) ? vector[origin]! : 0);
    let first = this.#ownLast > held(this.#identity) ? held(this.#identity) : (this.#streams.get(STATE_STREAM)?.length ?? 0);
    for (const [origin, places] of this.#origins) {
      if (places.highest <= held(origin)) continue;
      // In seq order: the first entry beyond the vector's is the earliest event lacked.
      for (const [originSeq, seq] of places)
        if (originSeq > held(origin)) {
          first = Math.min(first, seq - 1);
          break;
        }
    }
    return first;
  }

  async atOrigin(origin: string, originSeq: number): Promise<LogEvent | undefined> {
    const seq = origin === this.#identity ? originSeq : this.#origins.get(origin)?.get(originSeq);
    const event = seq === undefined ? undefined : this.#streams.get(STATE_STREAM)?.[seq - 1];
    return event && (event.origin ?? this.#identity) === origin ? deepFreeze(event) : undefined;
  }

  async read(query: ReadQuery): Promise<LogEvent[]> {
    const { stream, afterSeq, limit } = parseReadQuery(query);
    const events = this.#streams.get(stream) ?? [];
    const out = events.slice(afterSeq, limit > 0 ? afterSeq + limit : events.length);
    for (const event of out) deepFreeze(event);
    return out;
  }

  /**
   * @internal The fold's read: events as stored, unfrozen. Every event of the
   * `state` stream was validated on its way in (by `append`, or built by the
   * stamper), so those at the current schema version need no second check.
   */
  [trustedRead](stream: string, afterSeq: number, limit: number): LogEvent[] {
    const events = this.#streams.get(stream) ?? [];
    return events.slice(afterSeq, afterSeq + limit);
  }

  async head(stream: string): Promise<number> {
    return this.#streams.get(checkStream(stream))?.length ?? 0;
  }

  async saveSnapshot(snapshot: StoredSnapshot): Promise<void> {
    this[storeSnapshotRows]([snapshot]);
  }

  /** @internal Stores snapshot rows in one synchronous step: all are checked before any is stored. */
  [storeSnapshotRows](rows: readonly StoredSnapshot[]): void {
    for (const row of rows) checkSnapshot(row);
    for (const { stream, seq, data } of rows) entryFor(this.#snapshots, stream, () => new Map()).set(seq, { stream, seq, data });
  }

  async latestSnapshot(stream: string, options?: { upToSeq?: number }): Promise<StoredSnapshot | undefined> {
    const upTo = parseUpToSeq(options);
    const byStream = this.#snapshots.get(checkStream(stream));
    if (!byStream) return undefined;
    let best: StoredSnapshot | undefined;
    for (const snap of byStream.values()) {
      if (snap.seq > upTo) continue;
      if (!best || snap.seq > best.seq) best = snap;
    }
    return best ? { ...best } : undefined;
  }
}

/** Freezes `value` and everything reachable from it, so stored events can be shared with readers without copies; returns it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
