/** The driver-error table: every SQLite error a caller could provoke maps to a typed error. */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConflictError, CorruptionError, ValidationError } from '@agentstate/core';
import { IncompatibleDatabaseError, mapSqliteError } from '../src/index.js';

/** Builds an error shaped like better-sqlite3's `SqliteError`. */
function driverError(code: string, message = code): Error {
  const error = new Error(message) as Error & { code: string };
  error.name = 'SqliteError';
  error.code = code;
  return error;
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
    ['SQLITE_ERROR', 'Dimension mismatch for inserted vector', ValidationError, false],
  ];

  it.each(table)('%s → %s', (code, message, expected, retryable) => {
    const mapped = mapSqliteError(driverError(code, message)) as Error & { retryable?: boolean };
    expect(mapped).toBeInstanceOf(expected);
    expect(mapped.retryable).toBe(retryable);
  });

  it('keeps environmental failures and foreign errors as they are', () => {
    for (const code of ['SQLITE_IOERR_WRITE', 'SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_PERM']) {
      const error = driverError(code);
      expect(mapSqliteError(error)).toBe(error);
    }
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
