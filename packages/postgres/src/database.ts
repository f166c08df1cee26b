/**
 * The connection layer: a `pg` pool (given, or made from a URL), the schema
 * every statement names, and transactions. Every query parses int8 and
 * numeric columns as JavaScript numbers through per-query type parsers, so
 * a pool the application shares is never reconfigured.
 */
import pg from 'pg';
import { ClosedError, ValidationError } from '@agentstate/core';
import { mapPgError } from './errors.js';
import { EVENTS_CHANNEL } from './subscribe.js';

/** Something that runs SQL: the pool, or one client inside a transaction. */
export interface Sql {
  /** Rows of a statement with `$n` parameters. */
  rows<R>(text: string, values?: readonly unknown[]): Promise<R[]>;
}

const INT8 = 20;
const NUMERIC = 1700;

/** Type parsers that turn int8 and numeric into numbers; every other type as `pg` parses it. */
const types = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

/** A schema name the library accepts: a plain lower-case identifier, quoted in every statement anyway. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks a schema name; anything else is a `ValidationError`. */
export function checkSchemaName(schema: unknown): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new ValidationError('schema', 'must be a lower-case identifier of letters, digits and _ (at most 63 characters, not starting with a digit)');
  }
  return schema;
}

async function run<R>(client: pg.Pool | pg.PoolClient, text: string, values: readonly unknown[] = []): Promise<R[]> {
  const result: pg.QueryResult | pg.QueryResult[] = await client.query({ text, values: values as unknown[], types });
  // Several statements without parameters (sent as one simple query) answer with one result each: the last one's rows.
  return (Array.isArray(result) ? result[result.length - 1]!.rows : result.rows) as R[];
}

/** A pool and the schema agentstate's tables live in. */
export class Database implements Sql {
  #closed = false;
  /** The wake-up in flight, if any; `#again` asks for one more after it. */
  #announcing: Promise<void> | undefined;
  #again = false;

  constructor(
    readonly pool: pg.Pool,
    /** The schema, quoted, for statements: `"agentstate"`. */
    readonly schema: string,
    /** Whether `close` ends the pool (the library made it). */
    private readonly ownsPool: boolean,
  ) {}

  /** The quoted schema-qualified name of a table. */
  t(table: string): string {
    return `"${this.schema}".${table}`;
  }

  rows<R>(text: string, values?: readonly unknown[]): Promise<R[]> {
    if (this.#closed) return Promise.reject(new ClosedError('the PostgreSQL provider is closed'));
    return run<R>(this.pool, text, values).catch((error: unknown) => {
      throw mapPgError(error);
    });
  }

  /**
   * Runs `fn` in one transaction on one client (`begin` opens it: READ
   * COMMITTED by default): committed
   * when it resolves, rolled back when it throws. Driver errors become
   * typed errors. `begin` may go on with statements without parameters
   * (`BEGIN; SELECT …`), sent in the same round trip; `fn` gets the rows of
   * the last. Several texts are sent one round trip each, in order.
   */
  async transaction<T>(fn: (sql: Sql, opened: unknown[]) => Promise<T>, begin: string | readonly string[] = 'BEGIN'): Promise<T> {
    if (this.#closed) throw new ClosedError('the PostgreSQL provider is closed');
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw mapPgError(error);
    }
    let broken = false;
    // A checked-out client has no listener of the pool's: a connection cut while the transaction runs
    // would be an unhandled 'error' event, ending the process. The statement in flight, or the next,
    // fails with the cause instead, and the client is not reused.
    const onError = (): void => {
      broken = true;
    };
    client.on('error', onError);
    // A failed opening may leave a session-level lock of its own (see `beginQuiescentRead`): that client is not reused.
    let begun = false;
    try {
      let opened: unknown[] = [];
      for (const text of typeof begin === 'string' ? [begin] : begin) opened = await run(client, text);
      begun = true;
      const result = await fn({ rows: (text, values) => run(client, text, values) }, opened);
      await run(client, 'COMMIT');
      return result;
    } catch (error) {
      if (!begun) broken = true;
      try {
        await run(client, 'ROLLBACK');
      } catch {
        // The connection is gone: the server rolls back by itself; the client must not be reused.
        broken = true;
      }
      throw mapPgError(error);
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  /**
   * Wakes the schema's subscribers (`subscribe.ts`) after a transaction that
   * appended has committed: a notification on {@link EVENTS_CHANNEL} in a
   * transaction of its own that does not wait for a WAL flush. Not from the
   * write transaction itself: PostgreSQL holds one database-wide lock from a
   * notifying transaction's pre-commit through its commit, which would
   * serialise every writer. Fire-and-forget, and coalesced: at most one is
   * in flight, and the commits during it ask for one more, sent after it, so
   * every commit is followed by a notification sent after it. A lost one (an
   * error, a server away) is covered by the subscribers' poll.
   */
  announce(): void {
    if (this.#closed) return;
    if (this.#announcing === undefined) this.#send();
    else this.#again = true;
  }

  #send(): void {
    const sent = (): void => {
      this.#announcing = undefined;
      if (!this.#again) return;
      this.#again = false;
      this.#send();
    };
    this.#announcing = run(this.pool, "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)", [EVENTS_CHANNEL, this.schema]).then(
      sent,
      sent,
    );
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // The last writes' wake-up goes out before the pool ends.
    while (this.#announcing !== undefined) await this.#announcing;
    if (this.ownsPool) await this.pool.end();
  }
}

/** Options of the pool made from a URL. */
export interface PoolOptions {
  /** Connections at most. Default: 10. */
  max?: number;
  /** How long to wait for a connection, in ms. Default: 10000. */
  connectTimeoutMs?: number;
  /** A statement running longer fails, in ms (`statement_timeout`). Default: none. */
  statementTimeoutMs?: number;
}

/** Whether `value` can serve as a pool: it connects and queries, as a `pg.Pool` (of any copy of `pg`) does. */
function isPool(value: unknown): value is pg.Pool {
  const pool = value as Partial<pg.Pool> | null;
  return typeof pool === 'object' && pool !== null && typeof pool.connect === 'function' && typeof pool.query === 'function';
}

/**
 * A pool for `url`, or the application's pool as given. Anything else
 * (`undefined` from an unset variable, say) is a `ValidationError` on
 * `urlOrPool`, before any connection is tried.
 */
export function openPool(urlOrPool: string | pg.Pool, options: PoolOptions = {}): { pool: pg.Pool; owned: boolean } {
  if (typeof urlOrPool !== 'string') {
    if (!isPool(urlOrPool))
      throw new ValidationError('urlOrPool', `must be a postgres:// URL or a pg.Pool, not ${urlOrPool === null ? 'null' : typeof urlOrPool}`);
    return { pool: urlOrPool, owned: false };
  }
  const pool = new pg.Pool({
    connectionString: urlOrPool,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
  });
  // An idle client whose server went away emits here; without a listener the process would crash.
  pool.on('error', () => undefined);
  return { pool, owned: true };
}
