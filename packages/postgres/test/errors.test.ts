/**
 * The one mapping of `pg`'s errors to agentstate's typed errors, as a table
 * of driver errors: what a caller can meet is always an `AgentStateError`,
 * and the transient ones are retryable.
 */
import { describe, expect, it } from 'vitest';
import type { AgentStateError } from '@agentstate/core';
import { ConflictError, NotFoundError, ValidationError } from '@agentstate/core';
import { ConnectionLostError, mapPgError, openPostgres, openPostgresLog, ServerStorageError, StatementTimeoutError } from '../src/index.js';

/** A driver error as `pg` raises it: an Error with the server's SQLSTATE (or Node's socket code) in `code`. */
const driver = (code: string | undefined, message = 'driver says no'): Error => Object.assign(new Error(message), code === undefined ? {} : { code });

const TABLE: Array<[string, Error, new (...args: never[]) => AgentStateError, boolean]> = [
  ['connection refused', driver('ECONNREFUSED'), ConnectionLostError, true],
  ['connection reset', driver('ECONNRESET'), ConnectionLostError, true],
  ['connection failure (08006)', driver('08006'), ConnectionLostError, true],
  ['admin shutdown (57P01)', driver('57P01'), ConnectionLostError, true],
  ['cannot connect now (57P03)', driver('57P03'), ConnectionLostError, true],
  ['terminated mid-query', driver(undefined, 'Connection terminated unexpectedly'), ConnectionLostError, true],
  ['statement timeout (57014)', driver('57014'), StatementTimeoutError, true],
  ['pool connect timeout', driver(undefined, 'timeout exceeded when trying to connect'), StatementTimeoutError, true],
  ['serialization failure (40001)', driver('40001'), ConflictError, true],
  ['deadlock (40P01)', driver('40P01'), ConflictError, true],
  ['lock not available (55P03)', driver('55P03'), ConflictError, true],
  ['unique violation (23505)', driver('23505'), ConflictError, true],
  ['NUL in text (22021)', driver('22021'), ValidationError, false],
  ['value too long for a tsvector (54000)', driver('54000'), ValidationError, false],
  ['disk full (53100)', driver('53100'), ServerStorageError, false],
  ['permission denied (42501)', driver('42501'), ServerStorageError, false],
  ['anything else', new Error('odd'), ServerStorageError, false],
  ['not even an Error', 'a string' as unknown as Error, ServerStorageError, false],
];

describe('mapPgError', () => {
  it.each(TABLE)('maps %s', (_, error, type, retryable) => {
    const mapped = mapPgError(error);
    expect(mapped).toBeInstanceOf(type);
    expect(mapped.retryable).toBe(retryable);
  });

  it('passes agentstate errors through unchanged', () => {
    const error = new NotFoundError('session', 'x');
    expect(mapPgError(error)).toBe(error);
  });

  it('says a refusal at connecting (a role, a password, a database) refused the connection, not a statement', () => {
    for (const code of ['28000', '28P01', '3D000'])
      expect(mapPgError(driver(code, 'role "nobody" does not exist')).message).toBe(
        `PostgreSQL refused the connection (${code}): role "nobody" does not exist`,
      );
    expect(mapPgError(driver('42501', 'permission denied')).message).toBe('PostgreSQL refused the statement (42501): permission denied');
  });

  it('keeps the driver error as the cause', () => {
    const error = driver('53100');
    expect((mapPgError(error) as ServerStorageError).cause).toBe(error);
    expect((mapPgError(error) as ServerStorageError).sqlState).toBe('53100');
  });
});

describe('opening without a URL or a pool', () => {
  it.each([undefined, null, 42, {}])('refuses %s as a ValidationError naming urlOrPool, before any connection', async (value) => {
    for (const open of [openPostgres, openPostgresLog]) {
      const error = await open(value as unknown as string).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe('urlOrPool');
      expect((error as Error).message).toMatch(/^invalid urlOrPool: must be a postgres:\/\/ URL or a pg\.Pool/);
    }
  });
});
