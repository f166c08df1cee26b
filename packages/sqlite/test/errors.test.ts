/** The driver-error table: every SQLite error a caller could provoke maps to a typed error. */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AgentStateError, ConflictError, CorruptionError, ValidationError } from '@agentstate/core';
import {
  DatabaseNotFoundError,
  DiskFullError,
  IncompatibleDatabaseError,
  mapFileError,
  mapSqliteError,
  NotAFileError,
  PermissionDeniedError,
  ReadOnlyError,
  StorageError,
  StorageIoError,
} from '../src/index.js';

/** Builds the driver's own `SqliteError`, as its statements throw it. */
function driverError(code: string, message = code): Error {
  return new Database.SqliteError(message, code);
}

describe('mapSqliteError', () => {
  const table: Array<[string, string, new (...args: never[]) => Error, boolean]> = [
    ['SQLITE_BUSY', 'database is locked', ConflictError, true],
    ['SQLITE_BUSY_SNAPSHOT', 'database is locked', ConflictError, true],
    ['SQLITE_BUSY_TIMEOUT', 'database is locked', ConflictError, true],
    ['SQLITE_LOCKED', 'database table is locked', ConflictError, true],
    ['SQLITE_LOCKED_SHAREDCACHE', 'locked', ConflictError, true],
    ['SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: skills.id', ConflictError, true],
    ['SQLITE_CONSTRAINT_PRIMARYKEY', 'PRIMARY KEY constraint failed', ConflictError, true],
    ['SQLITE_CONSTRAINT_CHECK', 'CHECK constraint failed', ConflictError, true],
    ['SQLITE_TOOBIG', 'string or blob too big', ValidationError, false],
    ['SQLITE_RANGE', 'column index out of range', ValidationError, false],
    ['SQLITE_MISMATCH', 'datatype mismatch', ValidationError, false],
    ['SQLITE_NOTADB', 'file is not a database', IncompatibleDatabaseError, false],
    ['SQLITE_CORRUPT', 'database disk image is malformed', CorruptionError, false],
    ['SQLITE_CORRUPT_VTAB', 'malformed', CorruptionError, false],
    ['SQLITE_ERROR', 'no such column: time', CorruptionError, false],
    ['SQLITE_ERROR', 'malformed database schema (events) - near "x": syntax error', CorruptionError, false],
    ['SQLITE_ERROR', 'Dimension mismatch for inserted vector', ValidationError, false],
  ];

  it.each(table)('%s → %s', (code, message, expected, retryable) => {
    const mapped = mapSqliteError(driverError(code, message)) as Error & { retryable?: boolean };
    expect(mapped).toBeInstanceOf(expected);
    expect(mapped.retryable).toBe(retryable);
  });

  const environment: Array<[string, new (...args: never[]) => Error, string, RegExp]> = [
    ['SQLITE_FULL', DiskFullError, 'disk_full', /cannot write \/data\/state\.db: no space left/],
    ['SQLITE_IOERR_WRITE', DiskFullError, 'disk_full', /no space left \(the disk, a quota or a file-size limit is full/],
    ['SQLITE_IOERR_SHMSIZE', DiskFullError, 'disk_full', /no space left/],
    ['SQLITE_IOERR_READ', StorageIoError, 'io', /I\/O error on \/data\/state\.db \(SQLITE_IOERR_READ\)/],
    ['SQLITE_IOERR_FSYNC', StorageIoError, 'io', /I\/O error on \/data\/state\.db/],
    ['SQLITE_IOERR', StorageIoError, 'io', /I\/O error/],
    ['SQLITE_READONLY', ReadOnlyError, 'read_only', /cannot write \/data\/state\.db: the file is read-only/],
    ['SQLITE_READONLY_DIRECTORY', ReadOnlyError, 'read_only', /its folder is read-only/],
    ['SQLITE_READONLY_CANTINIT', ReadOnlyError, 'read_only', /its -shm file cannot be written/],
    ['SQLITE_READONLY_CANTLOCK', ReadOnlyError, 'read_only', /its -shm file cannot be written/],
    ['SQLITE_READONLY_DBMOVED', ReadOnlyError, 'read_only', /moved or deleted/],
    ['SQLITE_PERM', PermissionDeniedError, 'permission_denied', /cannot use \/data\/state\.db: permission denied/],
    ['SQLITE_CANTOPEN_ISDIR', NotAFileError, 'not_a_file', /it is a folder/],
    ['SQLITE_CANTOPEN', DatabaseNotFoundError, 'not_found', /cannot open \/data\/state\.db: (there is no such file|the folder \/data does not exist)/],
  ];

  it.each(environment)('%s → %s naming the path, the driver error kept as cause', (code, expected, stable, message) => {
    const error = driverError(code, 'disk I/O error');
    const mapped = mapSqliteError(error, '/data/state.db') as StorageError;
    expect(mapped).toBeInstanceOf(expected);
    expect(mapped).toBeInstanceOf(StorageError);
    expect(mapped).toBeInstanceOf(AgentStateError);
    expect(mapped.code).toBe(stable);
    expect(mapped.path).toBe('/data/state.db');
    expect(mapped.retryable).toBe(false);
    expect(mapped.message).toMatch(message);
    expect(mapped.cause).toBe(error);
  });

  it('names the database when the caller gives no path, and keeps foreign errors as they are', () => {
    expect((mapSqliteError(driverError('SQLITE_FULL')) as Error).message).toMatch(/cannot write the database: no space left/);
    const unknown = driverError('SQLITE_NOMEM');
    expect(mapSqliteError(unknown)).toBe(unknown);
    const plain = new TypeError('x');
    expect(mapSqliteError(plain)).toBe(plain);
    const typed = new ConflictError('already typed');
    expect(mapSqliteError(typed)).toBe(typed);
  });

  it('recognises real driver errors', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY)');
    db.prepare('INSERT INTO t VALUES (?)').run('a');
    let caught: unknown;
    try {
      db.prepare('INSERT INTO t VALUES (?)').run('a');
    } catch (error) {
      caught = error;
    }
    expect(mapSqliteError(caught)).toBeInstanceOf(ConflictError);
    db.close();
  });
});

describe('mapFileError', () => {
  const errnoError = (code: string) => Object.assign(new Error(`${code}: refused`), { code });
  const table: Array<[string, new (...args: never[]) => StorageError, string]> = [
    ['EEXIST', NotAFileError, 'a part of the path is a file, not a folder'],
    ['ENOTDIR', NotAFileError, 'a part of the path is a file, not a folder'],
    ['EISDIR', NotAFileError, 'it is a folder, not a database file'],
    ['ELOOP', NotAFileError, 'its symbolic links form a loop'],
    ['ENAMETOOLONG', NotAFileError, 'the name is too long for the file system'],
    ['EACCES', PermissionDeniedError, 'permission denied'],
    ['EPERM', PermissionDeniedError, 'permission denied'],
    ['EROFS', ReadOnlyError, 'the file system is read-only'],
    ['ENOSPC', DiskFullError, 'no space left (the disk, a quota or a file-size limit is full)'],
    ['EDQUOT', DiskFullError, 'no space left (the disk, a quota or a file-size limit is full)'],
    ['EFBIG', DiskFullError, 'no space left (the disk, a quota or a file-size limit is full)'],
    ['EIO', StorageIoError, 'I/O error'],
  ];

  it.each(table)('%s → %s naming what was done, the path and the cause', (code, expected, cause) => {
    const error = errnoError(code);
    const mapped = mapFileError(error, '/data/state.db', 'read') as StorageError;
    expect(mapped).toBeInstanceOf(expected);
    expect([mapped.path, mapped.message, mapped.cause]).toEqual(['/data/state.db', `cannot read /data/state.db: ${cause}`, error]);
  });

  it('names a missing file or folder, and keeps other errors as they are', () => {
    const missing = mapFileError(errnoError('ENOENT'), '/no/such/folder/state.db', 'open') as StorageError;
    expect([missing.constructor, missing.message]).toEqual([
      DatabaseNotFoundError,
      'cannot open /no/such/folder/state.db: the folder /no/such/folder does not exist',
    ]);
    for (const other of [errnoError('EBUSY'), new TypeError('x'), undefined]) expect(mapFileError(other, '/data/state.db', 'open')).toBe(other);
  });
});
