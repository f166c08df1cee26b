/**
 * The one place where SQLite's errors become agentstate's typed errors
 * (one error taxonomy, docs/contract.md §3: each backend maps its driver errors in one place).
 * Callers never see a raw driver error for anything their input or their
 * environment can cause: a full disk, a read-only file or folder, a missing
 * permission or a failing device each get a {@link StorageError} naming the
 * cause and the path, with the driver's error kept as `cause`.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AgentStateError, ConflictError, CorruptionError, IncompatibleDatabaseError, ValidationError } from '@agentstate/core';

/** The refusal of a file that is not a database this library can open: core's, shared by every backend. */
export { IncompatibleDatabaseError, type IncompatibleReason } from '@agentstate/core';

/**
 * The environment refused an operation on the database file: the error
 * family of disk full, read-only, permission denied, missing file or
 * folder, a path that is not a file, and other I/O failures. Not caused by
 * the call's input; `retryable` is false (fix the cause, then retry).
 */
export abstract class StorageError extends AgentStateError {
  constructor(
    /** The database path (or the side file or folder) concerned. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No space left: the disk, a quota or the process's file-size limit is full. */
export class DiskFullError extends StorageError {
  readonly code = 'disk_full' as const;
}

/** The file, its folder or its `-shm` file cannot be written, or the database was opened read-only. */
export class ReadOnlyError extends StorageError {
  readonly code = 'read_only' as const;
}

/** The operating system denied access to the file or its folder. */
export class PermissionDeniedError extends StorageError {
  readonly code = 'permission_denied' as const;
}

/** There is no database file at the path, or its folder does not exist. */
export class DatabaseNotFoundError extends StorageError {
  readonly code = 'not_found' as const;
}

/** The path names a folder or another non-file (a device, a pipe), or no file at all: a loop of symbolic links, a name too long for the file system. */
export class NotAFileError extends StorageError {
  readonly code = 'not_a_file' as const;
}

/** Any other failure of the storage: the device failed, or the file changed underneath. */
export class StorageIoError extends StorageError {
  readonly code = 'io' as const;
}

/** better-sqlite3's error, with SQLite's extended result code as `code`. */
type DriverError = InstanceType<typeof Database.SqliteError>;

function isDriverError(error: unknown): error is DriverError {
  return error instanceof Database.SqliteError;
}

/** What the database path is called in a message when the caller did not say. */
export const UNKNOWN_PATH = 'the database';

/**
 * Maps a driver error to an agentstate error; other errors pass through
 * unchanged. `path` is the database file, named in the message.
 */
export function mapSqliteError(error: unknown, path: string = UNKNOWN_PATH): unknown {
  if (error instanceof AgentStateError || !isDriverError(error)) return error;
  const code = error.code;
  const cause = { cause: error };
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new ConflictError(`the database is busy (another connection holds the write lock): ${error.message}`, cause);
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) return new ConflictError(`a stored record conflicts: ${error.message}`, cause);
  if (code === 'SQLITE_TOOBIG') return new ValidationError('', `a value is too large for the database: ${error.message}`);
  if (code === 'SQLITE_RANGE' || code === 'SQLITE_MISMATCH') return new ValidationError('', error.message);
  if (code === 'SQLITE_NOTADB') return new IncompatibleDatabaseError(path, 'not-sqlite', 'is not a SQLite database');
  // A read past the end of the file: the file was cut short, which is damage, not an I/O failure.
  if (code === 'SQLITE_IOERR_SHORT_READ') return new CorruptionError('database', 0, `${path} is truncated: ${error.message}`, cause);
  if (code.startsWith('SQLITE_CORRUPT')) return new CorruptionError('database', 0, `${path} is damaged: ${error.message}`, cause);
  // Every statement is the library's own and the schema was checked on open: a table or
  // column that is missing, or a full-text index whose configuration no longer parses,
  // means the pages on disk were damaged.
  if (code === 'SQLITE_ERROR' && /^(no such (table|column|index)|malformed database schema|invalid fts5 file format)/i.test(error.message)) {
    return new CorruptionError('database', 0, `${path} is damaged: its schema no longer matches this library's (${error.message})`, cause);
  }
  // sqlite-vec reports bad vectors with a plain SQLITE_ERROR.
  if (code === 'SQLITE_ERROR' && /dimension|vector|float32|k value/i.test(error.message)) return new ValidationError('vector', error.message);
  return mapEnvironmentError(error, path) ?? error;
}

/** A write that failed for want of space: SQLite reports a short write as FULL, a refused one (EFBIG, EDQUOT) as IOERR_WRITE. */
const NO_SPACE = new Set(['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_SHMSIZE']);

function mapEnvironmentError(error: DriverError, path: string): StorageError | undefined {
  const code = error.code;
  const cause = { cause: error };
  if (NO_SPACE.has(code)) {
    return new DiskFullError(
      path,
      `cannot write ${path}: no space left (the disk, a quota or a file-size limit is full, or the device failed); nothing of the failed write was kept`,
      cause,
    );
  }
  if (code === 'SQLITE_READONLY_DBMOVED') return new ReadOnlyError(path, `cannot write ${path}: the file was moved or deleted while open`, cause);
  if (code.startsWith('SQLITE_READONLY')) return readOnly(path, error);
  if (code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') return new PermissionDeniedError(path, `cannot use ${path}: permission denied`, cause);
  if (code.startsWith('SQLITE_CANTOPEN')) return explainCantOpen(path, error);
  if (code.startsWith('SQLITE_IOERR'))
    return new StorageIoError(path, `I/O error on ${path} (${code}): the device failed or the file changed underneath`, cause);
  return undefined;
}

/** Which part is read-only: SQLite reports a read-only folder in several ways, so the file system is asked. */
function readOnly(path: string, error: DriverError): ReadOnlyError {
  const cause = { cause: error };
  const writable = (target: string): boolean => {
    try {
      accessSync(target, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (error.code === 'SQLITE_READONLY_DIRECTORY' || (path !== UNKNOWN_PATH && existsSync(path) && !writable(dirname(path)))) {
    return new ReadOnlyError(path, `cannot write ${path}: its folder is read-only (SQLite creates its -wal and -shm files there)`, cause);
  }
  if (error.code === 'SQLITE_READONLY_CANTLOCK' || error.code === 'SQLITE_READONLY_CANTINIT' || error.code === 'SQLITE_READONLY_RECOVERY') {
    return new ReadOnlyError(path, `cannot use ${path}: its -shm file cannot be written`, cause);
  }
  return new ReadOnlyError(path, `cannot write ${path}: the file is read-only, or was opened read-only`, cause);
}

/** SQLite says only "unable to open": the file system says why. */
function explainCantOpen(path: string, error: DriverError): StorageError {
  const cause = { cause: error };
  if (error.code === 'SQLITE_CANTOPEN_ISDIR') return new NotAFileError(path, `cannot open ${path}: it is a folder, not a database file`, cause);
  if (path !== UNKNOWN_PATH) {
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) return new NotAFileError(path, `cannot open ${path}: it is a folder, not a database file`, cause);
      if (!stat) return databaseNotFound(path, 'open', error);
    } catch (statError) {
      if ((statError as NodeJS.ErrnoException).code === 'EACCES') return new PermissionDeniedError(path, `cannot open ${path}: permission denied`, cause);
    }
  }
  return new StorageIoError(path, `cannot open ${path} (${error.code}): it, its folder or its -wal/-shm files cannot be opened`, cause);
}

/** A missing file, or a missing folder when that is why. */
export function databaseNotFound(path: string, doing: string, cause?: unknown): DatabaseNotFoundError {
  const folder = dirname(path);
  const why = existsSync(folder) ? 'there is no such file' : `the folder ${folder} does not exist`;
  return new DatabaseNotFoundError(path, `cannot ${doing} ${path}: ${why}`, cause === undefined ? undefined : { cause });
}

/** What a Node file-system error (an `errno` code) on the database file says, by code: the class and the cause named. */
const FILE_ERRORS = new Map<string, { type: new (path: string, message: string, options: { cause: unknown }) => StorageError; cause: string }>(
  (
    [
      [['EEXIST', 'ENOTDIR'], NotAFileError, 'a part of the path is a file, not a folder'],
      [['EISDIR'], NotAFileError, 'it is a folder, not a database file'],
      [['ELOOP'], NotAFileError, 'its symbolic links form a loop'],
      [['ENAMETOOLONG'], NotAFileError, 'the name is too long for the file system'],
      [['EACCES', 'EPERM'], PermissionDeniedError, 'permission denied'],
      [['EROFS'], ReadOnlyError, 'the file system is read-only'],
      [['ENOSPC', 'EDQUOT', 'EFBIG'], DiskFullError, 'no space left (the disk, a quota or a file-size limit is full)'],
      [['EIO'], StorageIoError, 'I/O error'],
    ] as const
  ).flatMap(([codes, type, cause]) => codes.map((code) => [code, { type, cause }] as const)),
);

/**
 * Maps a Node file-system error (an `errno` code) met while checking or
 * reading the database file to the same family; other errors pass through.
 */
export function mapFileError(error: unknown, path: string, doing: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return databaseNotFound(path, doing, error);
  const known = code === undefined ? undefined : FILE_ERRORS.get(code);
  return known === undefined ? error : new known.type(path, `cannot ${doing} ${path}: ${known.cause}`, { cause: error });
}

/** Runs `fn`, rethrowing driver errors mapped by {@link mapSqliteError}, whether it throws or the promise it returns rejects. */
export function mapErrors<T>(fn: () => T, path?: string): T {
  const mapped = (error: unknown): never => {
    throw mapSqliteError(error, path);
  };
  try {
    const result = fn();
    return (result instanceof Promise ? result.catch(mapped) : result) as T;
  } catch (error) {
    return mapped(error);
  }
}

/**
 * `target` with every method, and every method of its object members, run
 * through `around` (synchronous methods: what they return is not awaited).
 */
export function aroundMethods<O extends object>(target: O, around: <T>(call: () => T) => T): O {
  return Object.fromEntries(
    Object.entries(target).map(([key, value]) => [
      key,
      typeof value === 'function'
        ? (...args: unknown[]) => around(() => value(...args))
        : typeof value === 'object' && value !== null
          ? aroundMethods(value, around)
          : value,
    ]),
  ) as O;
}

/** `queries` with the driver errors of every method mapped by {@link mapSqliteError}, naming `path`. */
export function mappingErrors<O extends object>(path: string, queries: O): O {
  return aroundMethods(queries, (call) => mapErrors(call, path));
}
