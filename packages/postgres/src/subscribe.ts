/**
 * A live tail of one stream: every event after a seq, exactly once and in
 * seq order, as transactions commit. Each read goes through the log's
 * `read`, which reads the `state` stream only up to its high-water mark
 * (every position below it settled), so reading `seq > last` never skips
 * an event though writers commit out of position order (README, "Ordering
 * under concurrency"). Every writer announces its appends on the channel
 * `agentstate_events` once they have committed, when a listener is
 * registered (`Database.announce`); the subscriber registers and LISTENs on a
 * connection of its own *before* each catch-up read ({@link listenSql}), so
 * an event committed between the read and the LISTEN is still announced,
 * and reads from the last seq it delivered on every notification. A lost
 * listening connection is replaced, LISTENs again and catches up; a slow
 * poll covers a lost notification (a writer's announcement is
 * fire-and-forget).
 */
import pg from 'pg';
import type { LogEvent } from '@agentstate/core';
import { AgentStateError, ClosedError, STATE_STREAM, ValidationError } from '@agentstate/core';
import { checkSchemaName, type Database } from './database.js';
import { mapPgError } from './errors.js';
import type { PostgresLog } from './log.js';
import { schemaLockKeys } from './writers-lock.js';

/** The channel a schema's writers notify after their appends commit, with the schema's name as payload. */
export const EVENTS_CHANNEL = 'agentstate_events';

/**
 * The first key of a schema's listeners' lock (`pg_advisory_lock_shared(int, int)`, the second the hash of the
 * quoted schema name, as the writers' lock's): a connection that listens holds it shared for as long as it
 * listens, and a writer notifies only when it cannot take it exclusive (`Database.announce`), so a schema
 * nobody follows costs its writers no notification, and no database-wide lock.
 */
export const LISTENERS_LOCK_KEY = 1_634_953_332;

/**
 * The statements, one simple query, that make a connection of its own hear the wake-ups of `schema`'s writers:
 * the listeners' lock ({@link LISTENERS_LOCK_KEY}) taken for the session, then `LISTEN`. Run them before the
 * catch-up read: an event committed before the lock was taken is read by it, and one committed after is
 * announced. Ending the connection unregisters it.
 */
export function listenSql(schema: string): string {
  return `SELECT pg_advisory_lock_shared(${schemaLockKeys(LISTENERS_LOCK_KEY, checkSchemaName(schema))}); LISTEN ${EVENTS_CHANNEL}`;
}

/** Options of a subscription. */
export interface SubscribeOptions {
  /** The stream to follow. Default: `state`. */
  stream?: string;
  /** Deliver the events after this seq (0: from the first). Default: the head when subscribing, so only new events. */
  afterSeq?: number;
  /** Events read per query. Default: 1000. */
  batch?: number;
  /** Reads even without a notification this often, in ms. Default: 5000. */
  pollMs?: number;
  /** Waits this long before replacing a lost listening connection, in ms. Default: 500. */
  reconnectMs?: number;
}

/**
 * A running subscription: iterate it (once) for the events; leaving the
 * loop, or {@link close}, ends it and its connection.
 */
export interface Subscription extends AsyncIterable<LogEvent> {
  /** The seq of the last event delivered (or the start, before any). */
  readonly lastSeq: number;
  /** Ends the subscription: a waiting iteration finishes. */
  close(): Promise<void>;
}

function positive(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new ValidationError(field, 'must be a positive integer');
  return value;
}

class PostgresSubscription implements Subscription {
  #last: number | undefined;
  #closed = false;
  #iterated = false;
  #client: pg.Client | undefined;
  /** Set by a notification (or a new connection) and taken by the loop: there may be events to read. */
  #dirty = true;
  #wake: (() => void) | undefined;
  readonly #stream: string;
  readonly #batch: number;
  readonly #pollMs: number;
  readonly #reconnectMs: number;

  constructor(
    private readonly db: Database,
    private readonly log: PostgresLog,
    options: SubscribeOptions,
  ) {
    this.#stream = options.stream ?? STATE_STREAM;
    if (options.afterSeq !== undefined && (!Number.isSafeInteger(options.afterSeq) || options.afterSeq < 0))
      throw new ValidationError('afterSeq', 'must be a non-negative integer');
    this.#last = options.afterSeq;
    this.#batch = positive(options.batch, 'batch', 1000);
    this.#pollMs = positive(options.pollMs, 'pollMs', 5000);
    this.#reconnectMs = positive(options.reconnectMs, 'reconnectMs', 500);
  }

  get lastSeq(): number {
    return this.#last ?? 0;
  }

  #signal(): void {
    this.#dirty = true;
    this.#wake?.();
  }

  /** Waits for a notification, a close or the poll interval. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }

  /** A listening connection (made when there is none), registered and LISTENing before the caller reads. */
  async #listen(): Promise<void> {
    if (this.#client !== undefined) return;
    const client = new pg.Client(this.db.pool.options);
    const lost = (): void => {
      if (this.#client !== client) return;
      this.#client = undefined;
      client.end().catch(() => undefined);
      this.#signal();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel === EVENTS_CHANNEL && message.payload === this.db.schema) this.#signal();
    });
    try {
      await client.connect();
      await client.query(listenSql(this.db.schema));
    } catch (error) {
      client.end().catch(() => undefined);
      throw mapPgError(error);
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    // Events committed before the LISTEN took effect are read now.
    this.#dirty = true;
  }

  async *#events(): AsyncGenerator<LogEvent> {
    while (!this.#closed) {
      try {
        await this.#listen();
        this.#last ??= await this.log.head(this.#stream);
        if (!this.#dirty) await this.#sleep(this.#pollMs);
        if (this.#closed) return;
        this.#dirty = false;
        const events = await this.log.read({ stream: this.#stream, afterSeq: this.#last, limit: this.#batch });
        if (events.length === this.#batch) this.#dirty = true;
        for (const event of events) {
          if (this.#closed) return;
          this.#last = event.seq;
          yield event;
        }
      } catch (error) {
        // A server away for a while is waited out; anything else ends the iteration.
        if (this.#closed || !(error instanceof AgentStateError && error.retryable)) throw error;
        this.#dirty = true;
        await this.#sleep(this.#reconnectMs);
        this.#dirty = true;
      }
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<LogEvent> {
    if (this.#iterated) throw new ClosedError('a subscription is iterated once; subscribe again for another reader');
    this.#iterated = true;
    const events = this.#events();
    return {
      next: () => events.next(),
      return: async (value?: unknown) => {
        await this.close();
        return events.return(value as undefined);
      },
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }
}

/** @internal Starts a subscription on `log`, whose schema `db` is. */
export function subscribeTo(db: Database, log: PostgresLog, options: SubscribeOptions = {}): Subscription {
  if (db.closed) throw new ClosedError('the PostgreSQL provider is closed');
  return new PostgresSubscription(db, log, options);
}
