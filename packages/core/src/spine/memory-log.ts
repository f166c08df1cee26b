/** An in-memory {@link Log}: the reference implementation and the test double of choice. */
import { ValidationError } from '../errors.js';
import { systemEntropy } from '../ids/entropy.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { formatInstant } from '../time/instant.js';
import { toLogEvent } from './append.js';
import { deepFreeze } from './freeze.js';
import { jsonClone } from './json.js';
import type { AppendInput, Log, LogEvent, ReadQuery, StoredSnapshot } from './log.js';

/** Options of {@link MemoryLog}. */
export interface MemoryLogOptions {
  /** Stamps `time` on events appended without one. */
  clock?: Clock;
  /**
   * The log's identity ({@link Log.identity}). Default: 128 random bits from
   * the OS, never from a provider's seeded entropy, so seeding ids does not
   * depend on whether the log draws bytes first. Give one for reproducible
   * stored snapshots.
   */
  identity?: string;
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
 * and reading costs no copy.
 */
export class MemoryLog implements Log {
  readonly #streams = new Map<string, LogEvent[]>();
  readonly #snapshots = new Map<string, Map<number, StoredSnapshot>>();
  readonly #clock: Clock;
  readonly #identity: string;

  constructor(options: MemoryLogOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    if (options.identity !== undefined && (typeof options.identity !== 'string' || options.identity === '')) {
      throw new ValidationError('identity', 'must be a non-empty string');
    }
    this.#identity = options.identity ?? newIdentity();
  }

  async identity(): Promise<string> {
    return this.#identity;
  }

  async append<P>(input: AppendInput<P>): Promise<LogEvent<P>> {
    return this.appendOwned({ ...input, payload: jsonClone(input.payload) });
  }

  /**
   * Appends without copying the payload: the caller hands it over and must
   * never touch it again (it is frozen here). For backends that build fresh
   * payloads, such as the in-memory backend.
   */
  appendOwned<P>(input: AppendInput<P>): LogEvent<P> {
    let events = this.#streams.get(input.stream);
    if (!events) {
      events = [];
      this.#streams.set(input.stream, events);
    }
    const event = deepFreeze(toLogEvent(input, events.length + 1, () => formatInstant(this.#clock.now())));
    events.push(event as LogEvent);
    return event;
  }

  async read(query: ReadQuery): Promise<LogEvent[]> {
    const events = this.#streams.get(query.stream) ?? [];
    const from = Math.max(0, query.afterSeq ?? 0);
    const to = query.limit && query.limit > 0 ? from + query.limit : events.length;
    return events.slice(from, to);
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
    byStream.set(snapshot.seq, { stream: snapshot.stream, seq: snapshot.seq, data: snapshot.data });
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
