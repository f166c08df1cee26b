/**
 * One SQLite connection shared by the log, the projection and the vectors
 * of a provider. Writes on it run one at a time (a mutex: better-sqlite3 is
 * synchronous, but the store engine awaits between look-ups and commit),
 * each as a `BEGIN IMMEDIATE` transaction so that writers in other
 * processes queue on the file lock (busy timeout) instead of failing.
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { Mutex } from '@agentstate/core';
import * as sqliteVec from 'sqlite-vec';
import { mapSqliteError } from './errors.js';

/** How hard SQLite works to make each commit durable (`PRAGMA synchronous`). */
export type SynchronousLevel = 'off' | 'normal' | 'full' | 'extra';

/** Options of {@link Connection.open}. */
export interface ConnectionOptions {
  /** How long a writer waits for another process's write lock, in ms. */
  busyTimeoutMs: number;
  /** `PRAGMA synchronous` in WAL mode. */
  synchronous: SynchronousLevel;
}

/** The connection defaults: wait up to 5 s for the lock, fsync every commit. */
export const DEFAULT_CONNECTION_OPTIONS: ConnectionOptions = { busyTimeoutMs: 5_000, synchronous: 'full' };

/** A database handle with a statement cache and the write discipline. */
export class Connection {
  readonly #statements = new Map<string, Statement>();
  readonly #mutex = new Mutex();
  #closed = false;
  /** True once sqlite-vec is loaded into this connection. */
  readonly vectorsLoaded: boolean;

  private constructor(
    readonly db: Db,
    readonly path: string,
    vectorsLoaded: boolean,
  ) {
    this.vectorsLoaded = vectorsLoaded;
  }

  /**
   * Opens the file (created when missing) with a busy timeout. WAL and the
   * synchronous level are set by {@link configure}, after the caller has
   * checked that the file is ours: a foreign file must stay untouched.
   */
  static open(path: string, options: ConnectionOptions): Connection {
    const db = new Database(path);
    try {
      db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs))}`);
      return new Connection(db, path, loadVectors(db));
    } catch (error) {
      db.close();
      throw mapSqliteError(error);
    }
  }

  /** Switches to WAL and sets the synchronous level. */
  configure(options: ConnectionOptions): void {
    if (this.path !== ':memory:' && this.path !== '') {
      const mode = this.#withBusyRetry(() => this.db.pragma('journal_mode = WAL', { simple: true }), options.busyTimeoutMs);
      if (String(mode).toLowerCase() !== 'wal') throw new Error(`could not switch ${this.path} to WAL (journal_mode is ${String(mode)})`);
    }
    this.db.pragma(`synchronous = ${options.synchronous.toUpperCase()}`);
    // 64 MiB of page cache at most (allocated as used): recall over 100,000 items stays in memory.
    this.db.pragma('cache_size = -65536');
  }

  /** A cached prepared statement. */
  prepare(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `fn` once every earlier exclusive section of this connection has finished. */
  exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.#mutex.run(async () => {
      if (this.#closed) throw new Error('the database is closed');
      return fn();
    });
  }

  /** Opens a write transaction (`BEGIN IMMEDIATE`); call inside {@link exclusive}. */
  begin(): void {
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw mapSqliteError(error);
    }
  }

  /** Commits the open transaction; on failure rolls back and throws the mapped error. */
  commit(): void {
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.rollback();
      throw mapSqliteError(error);
    }
  }

  /** Rolls back the open transaction, if any. */
  rollback(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  /** Runs `fn` synchronously in one write transaction; call inside {@link exclusive}. */
  immediate<T>(fn: () => T): T {
    this.begin();
    let result: T;
    try {
      result = fn();
    } catch (error) {
      this.rollback();
      throw mapSqliteError(error);
    }
    this.commit();
    return result;
  }

  /**
   * Runs `fn` synchronously in one read transaction, so every statement in it
   * sees the same committed state. Inside an open write transaction of this
   * connection (which has written nothing yet: commits happen synchronously)
   * it simply runs.
   */
  read<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    this.db.exec('BEGIN DEFERRED');
    try {
      return fn();
    } catch (error) {
      throw mapSqliteError(error);
    } finally {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    }
  }

  /** Waits for running writes, then closes the handle. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#mutex.run(async () => {
      if (this.#closed) return;
      this.#closed = true;
      this.#statements.clear();
      this.db.close();
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  #withBusyRetry<T>(fn: () => T, timeoutMs: number): T {
    // Changing the journal mode can report SQLITE_BUSY without consulting the
    // busy handler while another process opens the same file.
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      try {
        return fn();
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (!code.startsWith('SQLITE_BUSY') || performance.now() >= deadline) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      }
    }
  }
}

/** Loads sqlite-vec when its platform binary is installed. */
function loadVectors(db: Db): boolean {
  try {
    sqliteVec.load(db);
    return true;
  } catch {
    return false;
  }
}
