/**
 * The defaults every program shares: where the database is, and which exit
 * code a failure gets, by its `code` whichever backend raised it.
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConflictError, CorruptionError, IncompatibleDatabaseError, NotFoundError, ValidationError } from '@agentstate/core';
import { ConnectionLostError, ServerStorageError, StatementTimeoutError } from '@agentstate/postgres';
import {
  DatabaseNotFoundError,
  DiskFullError,
  IncompatibleDatabaseError as SqliteIncompatibleDatabaseError,
  NotAFileError,
  PermissionDeniedError,
  ReadOnlyError,
  StorageIoError,
} from '@agentstate/sqlite';
import { DATABASE_ENV, DEFAULT_DATABASE_PATH, ExitCode, exitCodeOf, resolveTarget } from '../src/index.js';

describe('resolveTarget', () => {
  it('takes the argument, else AGENTSTATE_DB, else .agentstate/state.db, made absolute', () => {
    expect(DATABASE_ENV).toBe('AGENTSTATE_DB');
    expect(resolveTarget('a.db', { AGENTSTATE_DB: 'b.db' })).toBe(resolve('a.db'));
    expect(resolveTarget(undefined, { AGENTSTATE_DB: 'b.db' })).toBe(resolve('b.db'));
    expect(resolveTarget(undefined, {})).toBe(resolve(DEFAULT_DATABASE_PATH));
    expect(resolveTarget(undefined, {})).toBe(join(process.cwd(), '.agentstate', 'state.db'));
  });

  it('keeps a postgres:// URL and :memory: as given', () => {
    expect(resolveTarget(undefined, { AGENTSTATE_DB: 'postgres://u@h/db?schema=a' })).toBe('postgres://u@h/db?schema=a');
    expect(resolveTarget('postgresql://h/db')).toBe('postgresql://h/db');
    expect(resolveTarget(':memory:')).toBe(':memory:');
  });

  it('treats an empty AGENTSTATE_DB as unset, and refuses a blank path', () => {
    expect(resolveTarget(undefined, { AGENTSTATE_DB: '' })).toBe(resolve(DEFAULT_DATABASE_PATH));
    expect(() => resolveTarget(' ', {})).toThrow(ValidationError);
    expect(() => resolveTarget(undefined, { AGENTSTATE_DB: '  ' })).toThrow(/database path: is empty/);
  });

  it('refuses a URL of another scheme, which as a path would make a folder named after it', () => {
    for (const url of ['postgress://u@h/db?schema=a', 'http://127.0.0.1:8765/sync', 'HTP://h/x'])
      expect(() => resolveTarget(url, {}), url).toThrow(/database path: is a \w+:\/\/ URL, which names no database: give a file path or a postgres:\/\/ URL/);
    expect(() => resolveTarget(undefined, { AGENTSTATE_DB: 'file:///tmp/a.db' })).toThrow(ValidationError);
    expect(resolveTarget('notes:2026.db', {})).toBe(resolve('notes:2026.db'));
  });
});

describe('exitCodeOf', () => {
  it('is 2 for a damaged or foreign database, 3 for the environment, 1 for anything else', () => {
    const cases: Array<[unknown, number]> = [
      [new SqliteIncompatibleDatabaseError('/x.db', 'not-sqlite', 'is not a SQLite database'), ExitCode.corrupt],
      [new CorruptionError('state', 3, 'does not decode'), ExitCode.corrupt],
      [new DiskFullError('/x.db', 'disk full'), ExitCode.environment],
      [new ReadOnlyError('/x.db', 'read-only'), ExitCode.environment],
      [new PermissionDeniedError('/x.db', 'denied'), ExitCode.environment],
      [new NotAFileError('/x.db', 'a folder'), ExitCode.environment],
      [new StorageIoError('/x.db', 'i/o'), ExitCode.environment],
      [new DatabaseNotFoundError('/x.db', 'no file'), ExitCode.user],
      [new ValidationError('content', 'must not be empty'), ExitCode.user],
      [new NotFoundError('skill', 'deploy'), ExitCode.user],
      [new ConflictError('busy'), ExitCode.user],
      [new Error('anything else'), ExitCode.user],
    ];
    for (const [error, code] of cases) expect(exitCodeOf(error), String(error)).toBe(code);
    expect(ExitCode).toEqual({ ok: 0, user: 1, corrupt: 2, environment: 3 });
  });

  it("gives PostgreSQL's errors the codes of their SQLite equivalents", () => {
    expect(exitCodeOf(new ServerStorageError('53100', 'disk full'))).toBe(exitCodeOf(new DiskFullError('/x.db', 'disk full')));
    expect(exitCodeOf(new ConnectionLostError('the server went away'))).toBe(exitCodeOf(new StorageIoError('/x.db', 'i/o')));
    expect(exitCodeOf(new StatementTimeoutError('cancelled'))).toBe(ExitCode.environment);
    expect(exitCodeOf(new IncompatibleDatabaseError('agentstate', 'newer-schema', 'is newer'))).toBe(
      exitCodeOf(new SqliteIncompatibleDatabaseError('/x.db', 'newer-schema', 'is newer')),
    );
  });
});
