/** An in-memory {@link Log}: the reference implementation and the test double of choice. */
import { ValidationError } from '../errors.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { formatInstant } from '../time/instant.js';
import type { AppendInput, Log, LogEvent, ReadQuery, StoredSnapshot } from './log.js';
import { toLogEvent } from './append.js';

/** Options of {@link MemoryLog}. */
export interface MemoryLogOptions {
  /** Stamps `time` on events appended without one. */
  clock?: Clock;
}

/** A {@link Log} held in process memory. */
export class MemoryLog implements Log {
  /** Events stored as JSON text: a stored event can never alias a caller's object. */
  readonly #streams = new Map<string, string[]>();
  readonly #snapshots = new Map<string, Map<number, StoredSnapshot>>();
  readonly #clock: Clock;

  constructor(options: MemoryLogOptions = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  async append<P>(input: AppendInput<P>): Promise<LogEvent<P>> {
    return this.appendNow(input);
  }

  /**
   * The synchronous core of {@link append}, for callers that must not yield
   * between deciding and appending.
   */
  appendNow<P>(input: AppendInput<P>): LogEvent<P> {
    const events = this.#streams.get(input.stream) ?? [];
    const text = JSON.stringify(toLogEvent(input, events.length + 1, () => formatInstant(this.#clock.now())));
    if (events.length === 0) this.#streams.set(input.stream, events);
    events.push(text);
    return JSON.parse(text) as LogEvent<P>;
  }

  async read(query: ReadQuery): Promise<LogEvent[]> {
    const events = this.#streams.get(query.stream) ?? [];
    const from = Math.max(0, query.afterSeq ?? 0);
    const to = query.limit && query.limit > 0 ? from + query.limit : events.length;
    return events.slice(from, to).map((text) => JSON.parse(text) as LogEvent);
  }

  async head(stream: string): Promise<number> {
    return this.#streams.get(stream)?.length ?? 0;
  }

  async saveSnapshot(snapshot: StoredSnapshot): Promise<void> {
    if (!Number.isInteger(snapshot.seq) || snapshot.seq < 0) throw new ValidationError('seq', 'must be a non-negative integer');
    let byStream = this.#snapshots.get(snapshot.stream);
    if (!byStream) {
      byStream = new Map();
      this.#snapshots.set(snapshot.stream, byStream);
    }
    byStream.set(snapshot.seq, { ...snapshot });
  }

  async latestSnapshot(stream: string, options: { upToSeq?: number } = {}): Promise<StoredSnapshot | undefined> {
    const byStream = this.#snapshots.get(stream);
    if (!byStream) return undefined;
    let best: StoredSnapshot | undefined;
    for (const snap of byStream.values()) {
      if (options.upToSeq !== undefined && snap.seq > options.upToSeq) continue;
      if (!best || snap.seq > best.seq) best = snap;
    }
    return best ? { ...best } : undefined;
  }
}
