/**
 * The connection layer: a `pg` pool (given, or made from a URL), the schema
 * every statement names, and transactions. Statements, in a transaction or
 * not, go in pipelines of statements each connection prepares once
 * ({@link Pipeline}); scripts go as they are. Every query parses int8 and
 * numeric columns as JavaScript numbers through per-query type parsers, so
 * a pool the application shares is never reconfigured.
 */
import pg from 'pg';
import { ClosedError, ValidationError } from '@agentstate/core';
import { mapPgError } from './errors.js';
import { EVENTS_CHANNEL, LISTENERS_LOCK_KEY } from './subscribe.js';
import { schemaLockKeys } from './writers-lock.js';

/** The least time between two wake-ups one provider sends, in ms (`Database.announce`). */
const ANNOUNCE_INTERVAL_MS = 10;

/** How long a wake-up owed at the end of an interval waits for a commit to ride on, in ms (`Database.announce`). */
const RIDE_GRACE_MS = 5;

/** A statement with `$n` parameters, and their values. */
export type Statement = readonly [text: string, values?: readonly unknown[]];

/**
 * The subscribers' wake-up of `schema`, its name `$1` (`Database.announce`), without waiting for a WAL flush. Sent only
 * while a listener holds the schema's listeners' lock ({@link LISTENERS_LOCK_KEY}), which the writer then
 * cannot take: a notification takes a database-wide lock and an xid, which a schema nobody follows need not pay.
 * Skipped while the notification queue is half full (a listener that stopped reading fills it; the poll covers
 * the loss), so that a full queue, which fails a notifying transaction's commit, never fails the write that carries it.
 */
function wakeSql(schema: string): string {
  return `SELECT set_config('synchronous_commit', 'off', true), pg_notify('${EVENTS_CHANNEL}', $1)
  WHERE NOT pg_try_advisory_xact_lock(${schemaLockKeys(LISTENERS_LOCK_KEY, schema)}) AND pg_notification_queue_usage() < 0.5`;
}

/** Something that runs SQL: the pool, or one client inside a transaction. */
export interface Sql {
  /** Rows of a statement with `$n` parameters. */
  rows<R>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /**
   * A statement whose rows nobody reads. In a transaction it waits and goes
   * to the server in the round trip of the next statement that returns rows
   * (or of the `COMMIT`), whose error its own error then is: the work a
   * write does while it holds locks costs few round trips.
   */
  exec(text: string, values?: readonly unknown[]): Promise<void>;
  /**
   * A statement that waits as {@link exec}'s does, its rows promised for
   * when it has gone (in a transaction, by its commit at the latest): a
   * write learns what it needs of them after it is committed, without a
   * round trip of their own. Its failure fails the statement that took it.
   */
  later<R>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /** The rows of each of several statements, sent in one round trip (with what waits). */
  batch(statements: readonly Statement[]): Promise<unknown[][]>;
  /**
   * How many statements this has sent or queued. What a statement read
   * while the count was n is as fresh as a statement sent now, as long as
   * the count is still n: nothing has run, or locked, in between.
   */
  readonly sent: number;
}

const INT8 = 20;
const NUMERIC = 1700;

/** Type parsers that turn int8 and numeric into numbers; every other type as `pg` parses it. */
const types = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8 || oid === NUMERIC) return Number;
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

/** The rows of each statement `text` holds: several without parameters go as one simple query, and answer one result each. */
async function results(client: pg.Pool | pg.PoolClient, text: string, values: readonly unknown[] = []): Promise<unknown[][]> {
  const result: pg.QueryResult | pg.QueryResult[] = await client.query({ text, values: values as unknown[], types });
  return Array.isArray(result) ? result.map((r) => r.rows) : [result.rows];
}

async function run<R>(client: pg.Pool | pg.PoolClient, text: string, values: readonly unknown[] = []): Promise<R[]> {
  return (await results(client, text, values)).at(-1) as R[];
}

/** Bytes in bytea's text form (hex), as `pg` writes them. */
const byteaText = (bytes: Buffer): string => `\\x${bytes.toString('hex')}`;

/** An element of an array literal: quoted, its quotes and backslashes escaped. */
function element(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const text = Buffer.isBuffer(value) ? byteaText(value) : String(value);
  // Most elements (a turn's lexemes, ids, numbers) hold neither: no pattern run over them.
  return text.includes('"') || text.includes('\\') ? `"${text.replace(/["\\]/g, '\\$&')}"` : `"${text}"`;
}

/** A parameter's value as the extended protocol sends it: text, bytes or NULL; an array as an array literal. */
function param(value: unknown): string | Buffer | null {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) return `{${value.map(element).join(',')}}`;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The SQL literal of a parameter's value: what {@link param} sends, as
 * untyped text (the server infers its type from where it stands, as it
 * does for a parameter).
 */
function literal(value: unknown): string {
  const sent = param(value);
  if (sent === null) return 'NULL';
  return pg.escapeLiteral(Buffer.isBuffer(sent) ? byteaText(sent) : sent);
}

/** `statement` with its values written in as literals, so that it can join others in one simple query. */
function inline([text, values = []]: Statement): string {
  return values.length === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1]));
}

/**
 * A statement that has the statements after it in its transaction (or pipeline, outside one) planned for their
 * values on every run, though prepared: a search whose best plan depends on them (how many rows a `tsquery`
 * matches, a limit), which the generic plan the server may pick after a prepared statement's fifth run cannot see.
 */
export const PLAN_EACH_RUN: Statement = ["SELECT set_config('plan_cache_mode', 'force_custom_plan', true)"];

/** Statements that may wait at most, before they go by themselves. */
const MAX_WAITING = 64;

/** Statements one connection keeps prepared at most: a text met beyond them is parsed each time it is sent. */
const MAX_PREPARED = 200;

/** The statements prepared on one connection, by text; names to close before its next pipeline; names made so far. */
interface Prepared {
  names: Map<string, string>;
  close: string[];
  made: number;
}

/** The prepared statements of each connection (a `pg.Connection`, which lives as long as its session). */
const preparedOn = new WeakMap<object, Prepared>();

/** What `pg.Query` does inside, which {@link Pipeline} builds on. */
interface QueryInternals {
  handleError(error: unknown, connection: pg.Connection): void;
}

/**
 * Whether `error` is the server's refusal of a statement prepared before: its result's columns changed under it
 * (`cached plan must not change result type`: another process made a table again with other column types), or it is
 * gone (`prepared statement … does not exist`: an application sharing the pool sent `DISCARD ALL` or `DEALLOCATE
 * ALL` on the connection). Either fails on its connection until the statement is prepared again. A table dropped and
 * made again with the same columns needs nothing: the server plans the statement again by its names.
 */
export function replanned(error: unknown): boolean {
  const { code, routine } = (error ?? {}) as { code?: unknown; routine?: unknown };
  return (code === '0A000' && routine === 'RevalidateCachedQuery') || (code === '26000' && routine === 'FetchPreparedStatement');
}

/**
 * Statements sent in one round trip as a pipeline of the extended protocol:
 * each bound to its values and executed, then one Sync. The values never
 * go into the text (so neither side escapes nor lexes them), and a text is
 * parsed once per connection under a name: the server plans it once, not
 * per read or write. A query of `*` stays unnamed: a prepared statement's columns
 * may not change under it, as another process's upgrade of a table would
 * (one whose named columns changed type fails once: {@link replanned}).
 * Every text names its schema, so a connection's `search_path` cannot
 * change what a prepared name means.
 * Each text is one statement. Answers a result per statement.
 */
class Pipeline extends pg.Query {
  /** Names this pipeline prepares: after an error, which of them the server kept is unknown. */
  readonly #parsed: string[] = [];
  #prepared: Prepared | undefined;

  constructor(
    /** The statements, their values as sent. */
    readonly statements: readonly (readonly [text: string, values: (string | Buffer | null)[]])[],
    callback: (error: Error | undefined, result: pg.QueryResult | pg.QueryResult[]) => void,
  ) {
    super({ text: statements[0]![0], types }, callback as never);
  }

  requiresPreparation(): boolean {
    return true;
  }

  prepare(connection: pg.Connection): void {
    let prepared = preparedOn.get(connection);
    if (prepared === undefined) {
      prepared = { names: new Map(), close: [], made: 0 };
      preparedOn.set(connection, prepared);
    }
    this.#prepared = prepared;
    if (prepared.close.length > 0) for (const name of prepared.close.splice(0)) connection.close({ type: 'S', name }, true);
    for (const [text, values] of this.statements) {
      let name = prepared.names.get(text);
      if (name === undefined) {
        if (prepared.names.size < MAX_PREPARED && (text.startsWith('INSERT') || !text.includes('*'))) {
          name = `agentstate_${prepared.made++}`;
          prepared.names.set(text, name);
          this.#parsed.push(name);
        }
        connection.parse({ text, name: name ?? '', types: [] }, true);
      }
      connection.bind({ statement: name ?? '', values }, true);
      connection.describe({ type: 'P', name: '' }, true);
      connection.execute({ portal: '' }, true);
    }
    connection.sync();
  }

  handleError(error: unknown, connection: pg.Connection): void {
    const prepared = this.#prepared;
    if (prepared !== undefined && replanned(error)) {
      // The change that made one statement stale may have made others so: the connection prepares each again.
      prepared.close.push(...prepared.names.values());
      prepared.names.clear();
    } else if (prepared !== undefined && this.#parsed.length > 0) {
      for (const [text, name] of prepared.names) if (this.#parsed.includes(name)) prepared.names.delete(text);
      prepared.close.push(...this.#parsed);
    }
    (pg.Query.prototype as unknown as QueryInternals).handleError.call(this, error, connection);
  }
}

/** @internal Sends `statements` as one {@link Pipeline} on `client`; the rows of each. */
export function pipelined(client: pg.ClientBase, statements: readonly Statement[]): Promise<unknown[][]> {
  const mapped = statements.map(([text, values = []]) => [text, values.map(param)] as const);
  return new Promise((resolve, reject) => {
    void client.query(
      new Pipeline(mapped, (error, result) => {
        if (error) reject(error);
        else resolve(Array.isArray(result) ? result.map((r) => r.rows) : [result.rows]);
      }),
    );
  });
}

/** What a statement that waits (`TransactionSql.exec`) answers: it has nothing to wait for yet. */
const QUEUED = Promise.resolve();

/**
 * The `Sql` of a client inside a transaction. Statements given to `exec`
 * (and an opening still to send) wait in `pending`; the next statement
 * that returns rows takes them along in one round trip: a {@link Pipeline},
 * or, when a text holds several statements, one simple query with the
 * values written in as literals.
 */
class TransactionSql implements Sql {
  sent = 0;
  /** Whether the transaction's opening has gone to the server. */
  started: boolean;
  readonly #pending: Statement[];
  /** The statements of {@link later} still waiting: their place in `pending`, and how to answer them. */
  readonly #promised: { at: number; resolve: (rows: unknown[]) => void; reject: (error: unknown) => void }[] = [];

  constructor(
    private readonly client: pg.PoolClient,
    /** The opening, when it is to go with the first statement: each text's statements, split at `; `. */
    opening: readonly string[] | undefined,
  ) {
    this.#pending = (opening ?? []).flatMap((text) => text.split('; ').map((statement): Statement => [statement]));
    this.started = opening === undefined;
  }

  async rows<R>(text: string, values?: readonly unknown[]): Promise<R[]> {
    return (await this.batch([[text, values]]))[0] as R[];
  }

  exec(text: string, values?: readonly unknown[]): Promise<void> {
    this.sent += 1;
    this.#pending.push([text, values]);
    // A fold queues many: they go in bounded round trips. Else the one settled promise, not one a statement.
    return this.#pending.length >= MAX_WAITING ? this.#send([]).then(() => undefined) : QUEUED;
  }

  later<R>(text: string, values?: readonly unknown[]): Promise<R[]> {
    this.sent += 1;
    const at = this.#pending.push([text, values]) - 1;
    const rows = new Promise<R[]>((resolve, reject) => this.#promised.push({ at, resolve: resolve as (rows: unknown[]) => void, reject }));
    // Its failure is the statement's that took it, thrown there: the promise may be awaited only after that.
    rows.catch(() => undefined);
    return rows;
  }

  batch(statements: readonly Statement[]): Promise<unknown[][]> {
    this.sent += statements.length;
    return this.#send(statements);
  }

  /**
   * Commits with what waits. A transaction of which nothing has gone yet, opened by a bare `BEGIN`, goes
   * whole without it and without `COMMIT`: the pipeline's statements run as one transaction, committed at
   * its Sync (or undone whole by an error). Any other opening (an isolation level, say) is kept and committed.
   */
  async commit(): Promise<void> {
    if (this.started || this.#pending[0]?.[0] !== 'BEGIN') {
      await this.rows('COMMIT');
      return;
    }
    this.#pending.shift();
    for (const promised of this.#promised) promised.at -= 1;
    await this.#send([]);
  }

  /** Sends what waits, then `statements`; the rows of each of `statements`. */
  async #send(statements: readonly Statement[]): Promise<unknown[][]> {
    this.started = true;
    const all = [...this.#pending.splice(0), ...statements];
    const promised = this.#promised.splice(0);
    let answers: unknown[][];
    try {
      answers = all.some(([text]) => text.includes(';')) ? await results(this.client, all.map(inline).join(';\n')) : await pipelined(this.client, all);
    } catch (error) {
      for (const { reject } of promised) reject(error);
      throw error;
    }
    for (const { at, resolve } of promised) resolve(answers[at] ?? []);
    return answers.slice(answers.length - statements.length);
  }
}

/** A pool and the schema agentstate's tables live in. */
export class Database implements Sql {
  #closed = false;
  /** When the last wake-up went (`performance.now()`, ms), carried by a commit or alone (`Database.announce`). */
  #lastWake = Number.NEGATIVE_INFINITY;
  /** Whether a commit since the last wake-up is still to be announced. */
  #owed = false;
  /** Sends the wake-up owed alone, should no commit have carried it by the end of the interval and its grace. */
  #fallback: ReturnType<typeof setTimeout> | undefined;
  /** The wake-ups sent alone still in flight: `close` waits for them. */
  readonly #sending = new Set<Promise<void>>();
  /** The schema's wake-up ({@link wakeSql}). */
  readonly #wake: string;

  constructor(
    readonly pool: pg.Pool,
    /** The schema, quoted, for statements: `"agentstate"`. */
    readonly schema: string,
    /** Whether `close` ends the pool (the library made it). */
    private readonly ownsPool: boolean,
  ) {
    this.#wake = wakeSql(schema);
  }

  /** The quoted schema-qualified name of a table. */
  t(table: string): string {
    return `"${this.schema}".${table}`;
  }

  /** Statements sent through the pool (each may take another connection). */
  sent = 0;

  rows<R>(text: string, values?: readonly unknown[]): Promise<R[]> {
    return this.batch([[text, values]]).then((all) => all[0] as R[]);
  }

  async exec(text: string, values?: readonly unknown[]): Promise<void> {
    await this.rows(text, values);
  }

  later<R>(text: string, values?: readonly unknown[]): Promise<R[]> {
    return this.rows<R>(text, values);
  }

  /**
   * Sends `statements` on a client of the pool as one {@link Pipeline}, so
   * that a read outside a transaction is planned once per connection too; a
   * batch of several runs in one implicit transaction, as one simple query
   * of them did. A statement stale on that connection ({@link replanned}) is
   * prepared again and the batch sent again: its failure changed nothing.
   */
  batch(statements: readonly Statement[]): Promise<unknown[][]> {
    return this.#withClient((client) => {
      this.sent += statements.length;
      return pipelined(client, statements).catch((error: unknown) => (replanned(error) ? pipelined(client, statements) : Promise.reject(error)));
    });
  }

  /**
   * Sends `text` as it is, without parameters, in one simple query: several
   * statements (in one implicit transaction), or one that is no plan to keep
   * or that a pipeline cannot take (`VACUUM`, `CHECKPOINT`, DDL).
   */
  async script(text: string): Promise<void> {
    await this.#withClient((client) => results(client, text));
  }

  /**
   * Runs `fn` on a client of the pool, given back to it after, or ended when
   * its connection broke (or when `fn` calls `broke`). Driver errors become
   * typed errors.
   */
  async #withClient<T>(fn: (client: pg.PoolClient, broke: () => void) => Promise<T>): Promise<T> {
    if (this.#closed) throw new ClosedError('the PostgreSQL provider is closed');
    const client = await this.pool.connect().catch((error: unknown) => Promise.reject(mapPgError(error)));
    let broken = false;
    // A checked-out client has no listener of the pool's: a connection cut while `fn` runs would be an
    // unhandled 'error' event, ending the process. The statement in flight, or the next, fails with the
    // cause instead, and the client is not reused.
    const broke = (): void => {
      broken = true;
    };
    client.on('error', broke);
    try {
      return await fn(client, broke);
    } catch (error) {
      throw mapPgError(error);
    } finally {
      client.removeListener('error', broke);
      client.release(broken);
    }
  }

  /**
   * Runs `fn` in one transaction on one client (`begin` opens it: READ
   * COMMITTED by default): committed when it resolves, rolled back when it
   * throws. Driver errors become typed errors. `begin` may go on with
   * statements without parameters (`BEGIN; SELECT …`); several texts are
   * sent one round trip each, in order. A `lazy` opening waits for the first
   * statement of `fn` and goes in its round trip; what `fn` leaves waiting
   * goes with the `COMMIT`. A lazy transaction all of whose statements wait
   * until then goes whole in one pipeline without `BEGIN` and `COMMIT`: the
   * server runs a pipeline's statements up to its Sync as one transaction,
   * committed there. When `wakes` says, once `fn` resolved, that the
   * transaction appended, its commit wakes the subscribers ({@link announce}).
   */
  transaction<T>(fn: (sql: Sql) => Promise<T>, begin: string | readonly string[] = 'BEGIN', lazy = false, wakes?: () => boolean): Promise<T> {
    return this.#withClient(async (client, broke) => {
      // A failed opening may leave a session-level lock of its own (see `beginQuiescentRead`): that client is not reused.
      let begun = false;
      const opening = typeof begin === 'string' ? [begin] : begin;
      const sql = new TransactionSql(client, lazy ? opening : undefined);
      try {
        if (!lazy) for (const text of opening) await run(client, text);
        begun = true;
        const result = await fn(sql);
        const appended = wakes?.() === true;
        if (!appended || this.#closed || performance.now() - this.#lastWake < ANNOUNCE_INTERVAL_MS) {
          await sql.commit();
          // Owed, not sent alone, though the interval may have ended during the COMMIT: the next commit carries it.
          if (appended && !this.#closed) this.#owe();
        } else {
          // The wake-up goes in the COMMIT's round trip, after it: it runs in an implicit transaction of its own.
          // One owed for earlier commits rides along; should this commit fail, it is still owed.
          const owed = this.#owed;
          this.#woke();
          try {
            await sql.batch([['COMMIT'], [this.#wake, [this.schema]]]);
          } catch (error) {
            if (owed) this.#owe();
            throw error;
          }
        }
        return result;
      } catch (error) {
        if (!begun) broke();
        if (sql.started) {
          try {
            await run(client, 'ROLLBACK');
          } catch {
            // The connection is gone: the server rolls back by itself; the client must not be reused.
            broke();
          }
        }
        throw error;
      }
    });
  }

  /**
   * Wakes the schema's subscribers (`subscribe.ts`) after a transaction that
   * appended has committed: a notification on {@link EVENTS_CHANNEL} in a
   * transaction of its own that does not wait for a WAL flush, when a
   * listener is registered ({@link wakeSql}): one registered after the commit
   * reads the event on its catch-up read. Not from the
   * write transaction itself: PostgreSQL holds one database-wide lock from a
   * notifying transaction's pre-commit through its commit, which would
   * serialise every writer. A write transaction sends it after its `COMMIT`,
   * in the same round trip (`transaction`); this asks for one after a commit
   * that could not carry it. Fire-and-forget, and throttled: the first commit
   * {@link ANNOUNCE_INTERVAL_MS} or more after the last wake-up notifies at
   * once; a commit sooner owes one, carried by the first commit after the
   * interval in its round trip, or sent through the pool if none comes within
   * {@link RIDE_GRACE_MS} of its end (each standalone one costs a round trip
   * and a server transaction). So every commit is followed by a notification
   * sent after it, and a busy writer sends one per interval instead of one
   * per write. The interval is read off the clock when a commit comes, not
   * timed: a timer runs only while a wake-up is owed, so a writer whose
   * commits are further apart than the interval (one of many sharing the
   * machine) is woken by no timer between them. A lost one (an error, a
   * server away) is covered by the subscribers' poll.
   */
  announce(): void {
    if (this.#closed) return;
    if (performance.now() - this.#lastWake >= ANNOUNCE_INTERVAL_MS) this.#sendAlone();
    else this.#owe();
  }

  /** Notes a wake-up sent now: nothing is owed, and the interval starts. */
  #woke(): void {
    this.#lastWake = performance.now();
    this.#owed = false;
    clearTimeout(this.#fallback);
    this.#fallback = undefined;
  }

  /** Owes a wake-up: sent alone at the end of the interval and its grace, unless a commit carries it first. */
  #owe(): void {
    this.#owed = true;
    this.#fallback ??= setTimeout(
      () => {
        this.#fallback = undefined;
        if (this.#owed && !this.#closed) this.#sendAlone();
      },
      this.#lastWake + ANNOUNCE_INTERVAL_MS + RIDE_GRACE_MS - performance.now(),
    ).unref();
  }

  /** Sends a wake-up alone, through the pool. */
  #sendAlone(): void {
    this.#woke();
    const sent = run(this.pool, this.#wake, [this.schema]).then(
      () => undefined,
      () => undefined,
    );
    this.#sending.add(sent);
    void sent.then(() => this.#sending.delete(sent));
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // The last writes' wake-up goes out before the pool ends, without waiting out its interval.
    if (this.#owed) this.#sendAlone();
    clearTimeout(this.#fallback);
    await Promise.all(this.#sending);
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
    // Every statement here is short: once a table's estimates pass `jit_above_cost` (a sync's `changes` of a
    // 100,000-event log did), compiling the plan took 0.3 to 3 s of a statement that runs in under 1 ms.
    // The URL's own `options`, when it gives some, replace these.
    options: '-c jit=off',
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
  });
  // An idle client whose server went away emits here; without a listener the process would crash.
  pool.on('error', () => undefined);
  return { pool, owned: true };
}
