/**
 * The defaults every program on the backend shares: where the database is,
 * which embedder recall uses, and which exit code a failure gets.
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConflictError, CorruptionError, NotFoundError, ValidationError } from '@agentstate/core';
import { STATIC_EMBEDDER_ID } from '@agentstate/embeddings';
import {
  createDefaultEmbedder,
  DATABASE_ENV,
  DatabaseNotFoundError,
  DEFAULT_DATABASE_PATH,
  DiskFullError,
  ExitCode,
  exitCodeOf,
  IncompatibleDatabaseError,
  NotAFileError,
  PermissionDeniedError,
  ReadOnlyError,
  resolveDatabasePath,
  StorageIoError,
} from '../src/index.js';

describe('resolveDatabasePath', () => {
  it('takes the flag, else AGENTSTATE_DB, else .agentstate/state.db, made absolute', () => {
    expect(DATABASE_ENV).toBe('AGENTSTATE_DB');
    expect(resolveDatabasePath('a.db', { AGENTSTATE_DB: 'b.db' })).toBe(resolve('a.db'));
    expect(resolveDatabasePath(undefined, { AGENTSTATE_DB: 'b.db' })).toBe(resolve('b.db'));
    expect(resolveDatabasePath(undefined, {})).toBe(resolve(DEFAULT_DATABASE_PATH));
    expect(resolveDatabasePath(undefined, {})).toBe(join(process.cwd(), '.agentstate', 'state.db'));
  });

  it('treats an empty AGENTSTATE_DB as unset, and refuses a blank path', () => {
    expect(resolveDatabasePath(undefined, { AGENTSTATE_DB: '' })).toBe(resolve(DEFAULT_DATABASE_PATH));
    expect(() => resolveDatabasePath(' ', {})).toThrow(ValidationError);
    expect(() => resolveDatabasePath(undefined, { AGENTSTATE_DB: '  ' })).toThrow(/database path: is empty/);
  });
});

describe('createDefaultEmbedder', () => {
  it('is the offline static embedder', async () => {
    expect((await createDefaultEmbedder()).id).toBe(STATIC_EMBEDDER_ID);
  });
});

describe('exitCodeOf', () => {
  it('is 2 for a damaged or foreign database, 3 for the environment, 1 for anything else', () => {
    const cases: Array<[unknown, number]> = [
      [new IncompatibleDatabaseError('/x.db', 'not-sqlite', 'is not a SQLite database'), ExitCode.corrupt],
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
});
