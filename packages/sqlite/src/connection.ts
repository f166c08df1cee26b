/**
 * The SQLite connection shared by the log, the projection and the vectors
 * of a provider: a write handle and, once {@link Connection.openReader} has
 * run, a read handle on the same file. Writes run one at a time (a mutex:
 * better-sqlite3 is synchronous, but the store engine awaits between
 * look-ups and commits), each as a `BEGIN IMMEDIATE` transaction: a
 * writer that finds the file's lock held by another process waits for it
 * (`lock-wait.ts`) instead of failing. A write transaction stays open across those awaits (group
 * commit), so a read meanwhile goes to the read handle, which WAL keeps
 * at the last COMMIT: a reader never sees a write that may yet fail.
 * Statements run on the write handle inside {@link Connection.onWriter}
 * (and {@link Connection.immediate}, which uses it), and whenever it has no
 * transaction open.
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { ClosedError } from '@agentstate/core';
import type { Mutex } from '@agentstate/core/backend';
import * as sqliteVec from 'sqlite-vec';
import { mapFileError, mapSqliteError, ReadOnlyError } from './errors.js';
import { fileSize, isAnonymous } from './file.js';
import { fileMutex } from './file-mutex.js';
import { LockWaits, whenFreeSync } from './lock-wait.js';

/** How hard SQLite works to make each commit durable (`PRAGMA synchronous`). */
export type SynchronousLevel = 'off' | 'normal' | 'full' | 'extra';

/** Options of {@link Connection.open}. */
export interface ConnectionOptions {
  /** How long a writer may wait for another process's write lock, in ms; absent: as long as the lock is held. */
  busyTimeoutMs?: number;
  /** `PRAGMA synchronous` in WAL mode. */
  synchronous: SynchronousLevel;
  /** Open without the right to write: nothing is created, upgraded or written. */
  readonly?: boolean;
}

/** The connection defaults: wait for the write lock as long as it is held, fsync every commit. */
export const DEFAULT_CONNECTION_OPTIONS: ConnectionOptions = { synchronous: 'full' };

/**
 * How long SQLite's own busy handler may block a statement, in ms: on the
 * read handle (a read in WAL waits only while another connection recovers
 * the file) and on the write handle while the file is opened. Afterwards the
 * write handle's is 0: waiting for the write lock is `lock-wait.ts`'s.
 */
const DRIVER_BUSY_MS = 5_000;

/** SQLite's busy timeout of a handle: {@link DRIVER_BUSY_MS}, or less when the caller's deadline is shorter. */
function driverBusyMs(options: ConnectionOptions): number {
  return Math.max(0, Math.trunc(Math.min(DRIVER_BUSY_MS, options.busyTimeoutMs ?? DRIVER_BUSY_MS)));
}

/** Largest part of a database file read through a memory map (SQLite's `mmap_size`). */
const MMAP_BYTES = 1 << 30;

/** A handle's page cache, in KiB as `PRAGMA cache_size` takes it (negative): 64 MiB at most, allocated as used. */
const CACHE_KIB = -65_536;

/** The page cache of a {@link Connection.readScattered} read, in KiB: small, so its few buffers are reused page after page. */
const SCATTERED_CACHE_KIB = -256;

/** Database handles with their statement caches and the write discipline. */
export class Connection {
  readonly #statements = new Map<string, Statement>();
  /** The read handle's statements; the same map as `#statements` while there is no read handle. */
  #readStatements = this.#statements;
  /** Where reads go outside {@link onWriter}: the write handle until {@link openReader} opens another. */
  #reader: Db;
  /** How many {@link onWriter} sections are running (nested ones included). */
  #onWriter = 0;
  readonly #mutex: Mutex;
  readonly #releaseMutex: () => void;
  #closed = false;
  /** The waits of this connection's writes for another process's lock. */
  readonly #lockWaits: LockWaits;
  /** True once sqlite-vec is loaded into this connection's handles. */
  vectorsLoaded: boolean;

  private constructor(
    /** The handle every write goes through. */
    readonly writer: Db,
    readonly path: string,
    vectorsLoaded: boolean,
    readonly readonly: boolean,
    /** The caller's deadline for the write lock, in ms (`busyTimeoutMs`); undefined: none. */
    private readonly busyTimeoutMs: number | undefined,
  ) {
    this.vectorsLoaded = vectorsLoaded;
    this.#lockWaits = new LockWaits(path, busyTimeoutMs);
    this.#reader = writer;
    const { mutex, release } = fileMutex(path);
    this.#mutex = mutex;
    this.#releaseMutex = release;
  }

  /**
   * Opens the file with a busy timeout: created when missing, unless
   * `readonly`. WAL and the synchronous level are set by {@link configure},
   * after the caller has checked that the file is ours: a foreign file must
   * stay untouched.
   */
  static open(path: string, options: ConnectionOptions): Connection {
    const readonly = options.readonly === true && !isAnonymous(path);
    let db: Db;
    try {
      db = readonly ? openReadOnly(path) : new Database(path);
    } catch (error) {
      throw mapSqliteError(error, path);
    }
    try {
      db.pragma(`busy_timeout = ${driverBusyMs(options)}`);
      // A read-only open refuses writes even where the handle could make them (a copy in memory).
      if (readonly) db.pragma('query_only = ON');
      return new Connection(db, path, loadVectors(db), readonly, options.busyTimeoutMs);
    } catch (error) {
      db.close();
      throw mapSqliteError(error, path);
    }
  }

  /**
   * The handle statements run on now: the write handle inside
   * {@link onWriter}, and while it has no transaction open (it then shows
   * the last COMMIT, and its page cache is warm); the read handle while a
   * write transaction is open across an await.
   */
  get db(): Db {
    return this.#onWriterNow() ? this.writer : this.#reader;
  }

  #onWriterNow(): boolean {
    return this.#onWriter > 0 || !this.writer.inTransaction;
  }

  /** Runs `fn` (synchronous) with every statement of this connection on the write handle. */
  onWriter<T>(fn: () => T): T {
    this.#onWriter += 1;
    try {
      return fn();
    } finally {
      this.#onWriter -= 1;
    }
  }

  /**
   * Opens the read handle: a second connection to the file, which WAL keeps
   * at the last COMMIT while a write transaction is open on the first. Not
   * for a read-only open (nothing of ours is ever uncommitted there) or a
   * private database (`:memory:`, which no second connection can reach:
   * its reads stay on the one handle). From then on, too, a write that
   * finds the file's lock held waits for it off the event loop
   * ({@link beginWhenFree}). Call once the schema is in place.
   */
  openReader(options: ConnectionOptions): void {
    if (this.readonly || this.#reader !== this.writer) return;
    // From now on a `BEGIN IMMEDIATE` that finds the lock held returns at once, and waits off the event loop.
    this.writer.pragma('busy_timeout = 0');
    if (isAnonymous(this.path)) return;
    let db: Db | undefined;
    try {
      db = new Database(this.path, { fileMustExist: true });
      db.pragma(`busy_timeout = ${driverBusyMs(options)}`);
      // The read handle never writes: were a read path to try, it fails here rather than escape the write discipline.
      db.pragma('query_only = ON');
      db.pragma(`cache_size = ${CACHE_KIB}`);
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      this.vectorsLoaded = loadVectors(db) && this.vectorsLoaded;
    } catch (error) {
      db?.close();
      throw mapSqliteError(error, this.path);
    }
    this.#reader = db;
    this.#readStatements = new Map();
  }

  /** Switches to WAL (unless read-only: the mode is the file's) and sets the synchronous level. */
  configure(options: ConnectionOptions): void {
    if (!this.readonly && !isAnonymous(this.path)) {
      // Changing the journal mode can report SQLITE_BUSY without consulting the busy handler while another process opens the file.
      const mode = whenFreeSync(this.path, options.busyTimeoutMs, () => this.writer.pragma('journal_mode = WAL', { simple: true }));
      if (String(mode).toLowerCase() !== 'wal') {
        throw new ReadOnlyError(this.path, `could not switch ${this.path} to WAL (journal_mode is ${String(mode)}): its folder must be writable`);
      }
    }
    this.writer.pragma(`synchronous = ${options.synchronous.toUpperCase()}`);
    // Foreign keys are enforced: the schema declares none, but a deferred one added to the file fails its
    // COMMIT, as SQLite documents, which is how the tests make a real COMMIT fail.
    if (!this.readonly) this.writer.pragma('foreign_keys = ON');
    // Freed space is zeroed as it is freed, so a purge's erased text leaves no copy in free
    // space: SQLite honours it only for pages handled after it is set, so it is set at open.
    this.writer.pragma('secure_delete = ON');
    // 64 MiB of page cache at most (allocated as used): recall over 100,000 items stays in memory.
    this.writer.pragma(`cache_size = ${CACHE_KIB}`);
    // Reads map the file instead of copying pages into the cache: a vector search scans every
    // stored vector (40 MB at 100,000 items of 100 dimensions), which would churn the cache.
    this.writer.pragma(`mmap_size = ${MMAP_BYTES}`);
  }

  /** A cached prepared statement on the current handle ({@link db}); refused once closed, as the driver would with a less clear error. */
  prepare(sql: string): Statement {
    if (this.#closed) throw this.#closedError();
    const statements = this.#onWriterNow() ? this.#statements : this.#readStatements;
    let statement = statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `fn` once every earlier exclusive section of this connection, and of this process's other connections to its file, has finished. */
  exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.#mutex.run(async () => {
      if (this.#closed) throw this.#closedError();
      return fn();
    });
  }

  /**
   * Opens a write transaction (`BEGIN IMMEDIATE`), waiting while another
   * process holds the lock (the thread sleeps: for synchronous paths, such as
   * opening a file); call inside {@link exclusive}.
   */
  begin(): void {
    try {
      whenFreeSync(this.path, this.busyTimeoutMs, () => this.#beginNow());
    } catch (error) {
      throw mapSqliteError(error, this.path);
    }
  }

  /** As {@link begin}, waiting without blocking the event loop: reads of this process go on meanwhile. */
  async beginWhenFree(): Promise<void> {
    try {
      await this.#lockWaits.whenFree(() => this.#beginNow());
    } catch (error) {
      throw mapSqliteError(error, this.path);
    }
  }

  #beginNow(): void {
    // Prepared once, like every statement of a write: an `exec` would parse it again each time.
    this.onWriter(() => this.prepare('BEGIN IMMEDIATE').run());
  }

  /** Commits the open transaction; on failure rolls back and throws the mapped error. */
  commit(): void {
    try {
      this.onWriter(() => this.prepare('COMMIT').run());
    } catch (error) {
      this.rollback();
      throw mapSqliteError(error, this.path);
    }
  }

  /** Rolls back the open transaction, if any. */
  rollback(): void {
    if (this.writer.inTransaction) this.writer.exec('ROLLBACK');
  }

  /** Runs `fn` synchronously in one write transaction, on the write handle; call inside {@link exclusive}. */
  immediate<T>(fn: () => T): T {
    this.begin();
    return this.#runBegun(fn);
  }

  /** As {@link immediate}, waiting for the lock without blocking the event loop ({@link beginWhenFree}). */
  async immediateWhenFree<T>(fn: () => T): Promise<T> {
    await this.beginWhenFree();
    return this.#runBegun(fn);
  }

  /** Runs `fn` in the transaction just begun and commits it; rolls back if `fn` throws. */
  #runBegun<T>(fn: () => T): T {
    let result: T;
    try {
      result = this.onWriter(fn);
    } catch (error) {
      this.rollback();
      throw mapSqliteError(error, this.path);
    }
    this.commit();
    return result;
  }

  /**
   * Runs `fn` synchronously in one read transaction of the current handle
   * ({@link db}), so every statement in it sees the same committed state.
   * In a transaction already open on that handle it simply runs, and sees
   * that transaction's writes.
   */
  read<T>(fn: () => T): T {
    if (this.#closed) throw this.#closedError();
    const db = this.db;
    if (db.inTransaction) return fn();
    db.exec('BEGIN DEFERRED');
    try {
      // A read transaction opened on the write handle must keep every statement there: once that handle is in a
      // transaction, `db` would hand them to the read handle, each seeing whatever other processes committed by then.
      return db === this.writer ? this.onWriter(fn) : fn();
    } catch (error) {
      throw mapSqliteError(error, this.path);
    } finally {
      if (db.inTransaction) db.exec('COMMIT');
    }
  }

  /**
   * Runs async `fn` in one read transaction of the write handle, with every
   * statement of this connection there meanwhile, so each sees the same
   * committed state; call inside {@link exclusive}, which keeps this
   * process's writes out until it ends.
   */
  async readAcross<T>(fn: () => Promise<T>): Promise<T> {
    this.#onWriter += 1;
    this.writer.exec('BEGIN DEFERRED');
    try {
      return await fn();
    } catch (error) {
      throw mapSqliteError(error, this.path);
    } finally {
      if (this.writer.inTransaction) this.writer.exec('COMMIT');
      this.#onWriter -= 1;
    }
  }

  /**
   * Runs `fn` as {@link read} does, with the handle reading pages by `pread` into a small page cache instead of
   * through the memory map: for a read of a few thousand pages scattered over a large file, as a long session's
   * history, where the first touch of each newly mapped page (or of each newly allocated cache buffer) costs far
   * more than copying the page into a buffer used before (bench/README.md, "history"). The map and the cache's
   * size are set back after (the cache's pages are not: few reads use it beside the map). In a transaction
   * already open, `fn` simply runs: the cache then holds that transaction's pages.
   */
  readScattered<T>(fn: () => T): T {
    if (this.#closed) throw this.#closedError();
    const db = this.db;
    if (db.inTransaction || isAnonymous(this.path)) return this.read(fn);
    db.pragma('mmap_size = 0');
    db.pragma(`cache_size = ${SCATTERED_CACHE_KIB}`);
    try {
      return this.read(fn);
    } finally {
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      db.pragma(`cache_size = ${CACHE_KIB}`);
    }
  }

  /**
   * Runs `fn` allowed to write scratch tables in the `temp` schema, which a
   * read-only open otherwise refuses (`query_only`). The database file stays
   * unwritable: a read-only handle cannot write it whatever `fn` does.
   */
  withScratch<T>(fn: () => T): T {
    if (!this.readonly) return fn();
    this.db.pragma('query_only = OFF');
    try {
      return fn();
    } finally {
      this.db.pragma('query_only = ON');
    }
  }

  /** Waits for running writes, then closes the handle. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#mutex.run(async () => {
      if (this.#closed) return;
      this.#closed = true;
      this.closeHandles();
    });
  }

  /**
   * Closes both handles at once, without waiting for running writes: for an
   * open that failed, and for {@link close}. The write handle closes last,
   * so the last connection to the file checkpoints it with write rights.
   */
  closeHandles(): void {
    this.#closed = true;
    this.#statements.clear();
    this.#readStatements.clear();
    if (this.#reader !== this.writer) this.#reader.close();
    this.writer.close();
    this.#releaseMutex();
  }

  get closed(): boolean {
    return this.#closed;
  }

  #closedError(): ClosedError {
    return new ClosedError(`the database ${this.path} is closed`);
  }
}

/** The driver codes of a read-only open that failed only for want of a writable folder or `-shm`. */
const NEEDS_WRITABLE_FOLDER = new Set(['SQLITE_READONLY_DIRECTORY', 'SQLITE_READONLY_CANTINIT', 'SQLITE_READONLY_CANTLOCK', 'SQLITE_CANTOPEN']);

/**
 * Opens the file read-only and reads its schema once, so that a failure
 * shows here. A WAL database needs a `-shm` file, which SQLite cannot create
 * in a read-only folder (or on read-only media): when the `-wal` is absent
 * or empty, every committed page is in the file itself, and a copy of it in
 * memory (marked as a rollback-journal file) reads the same. With a
 * non-empty `-wal` and no way to share its index, reading is refused.
 */
function openReadOnly(path: string): Db {
  let db: Db | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return db;
  } catch (error) {
    db?.close();
    const code = (error as { code?: string }).code ?? '';
    if (!NEEDS_WRITABLE_FOLDER.has(code)) throw error;
    if (fileSize(`${path}-wal`) > 0) {
      throw new ReadOnlyError(
        path,
        `cannot read ${path}: its folder is read-only and its -wal holds changes not yet checkpointed; open it once where its folder is writable`,
        { cause: error },
      );
    }
    return openCopy(path);
  }
}

function openCopy(path: string): Db {
  let image: Buffer;
  try {
    image = readFileSync(path);
  } catch (error) {
    throw mapFileError(error, path, 'read');
  }
  // Bytes 18 and 19 say "WAL"; a copy in memory has no WAL to consult.
  if (image.length > 19) image[18] = image[19] = 1;
  return new Database(image, { readonly: true });
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
