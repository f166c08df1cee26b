/**
 * The one error family, as a table: every error class a package exports is
 * an `AgentStateError` with a stable `code`, a `retryable` flag, a row in
 * docs/contract.md §3, and an exit code of the `agentstate` command chosen
 * by its code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as core from '@agentstate/core';
import {
  AgentStateError,
  ClosedError,
  ConflictError,
  CorruptionError,
  ExportFormatError,
  NotFoundError,
  OperationConflictError,
  SkillScopeRequiredError,
  SnapshotSealError,
  UnavailableError,
  ReadOnlyViewError,
  SyncConflictError,
  SyncHttpError,
  TokenLimitError,
  ValidationError,
} from '@agentstate/core';
import type { ErrorCode } from '@agentstate/core';
import * as embeddings from '@agentstate/embeddings';
import { EmbeddingHttpError, EmbeddingNetworkError, EmbeddingResponseError, EmbeddingTimeoutError, TableFormatError } from '@agentstate/embeddings';
import * as mcp from '@agentstate/mcp';
import { ScopeDeniedError, UsageError } from '@agentstate/mcp';
import * as postgres from '@agentstate/postgres';
import * as sqlite from '@agentstate/sqlite';
import {
  DatabaseNotFoundError,
  DiskFullError,
  IncompatibleDatabaseError,
  NotAFileError,
  PermissionDeniedError,
  ReadOnlyError,
  StorageIoError,
} from '@agentstate/sqlite';
import { ExitCode } from '@agentstate/open';
import { DamagedDatabaseError, exitCodeFor, InterruptedError, UserError } from '../src/errors.js';
import * as cli from '../src/index.js';

interface Row {
  error: AgentStateError;
  code: ErrorCode;
  retryable: boolean;
  exit: number;
}

const { user, corrupt, environment } = ExitCode;

/** One instance of every concrete class, with what it must carry. */
const TABLE: ReadonlyArray<Row> = [
  { error: new NotFoundError('skill', 'deploy'), code: 'not_found', retryable: false, exit: user },
  { error: new SkillScopeRequiredError('deploy', [['project:p']], 'project:p'), code: 'not_found', retryable: false, exit: user },
  { error: new ConflictError('skill id already taken'), code: 'conflict', retryable: true, exit: user },
  { error: new OperationConflictError('operation id "op" was already used'), code: 'conflict', retryable: false, exit: user },
  { error: new ValidationError('content', 'must not be empty'), code: 'invalid', retryable: false, exit: user },
  { error: new TokenLimitError('text', 2001, 2000), code: 'invalid', retryable: false, exit: user },
  { error: new ClosedError('the database is closed'), code: 'closed', retryable: false, exit: user },
  { error: new SyncConflictError('concurrent', 'a1', 3, 'both changed it', 'r1'), code: 'diverged', retryable: false, exit: user },
  { error: new CorruptionError('state', 7, 'malformed payload'), code: 'corruption', retryable: false, exit: corrupt },
  { error: new SnapshotSealError('HMAC mismatch'), code: 'seal_failed', retryable: false, exit: user },
  { error: new ExportFormatError('the trailer is missing', 12), code: 'invalid', retryable: false, exit: user },
  { error: new UnavailableError('sqlite-vec could not be loaded'), code: 'unavailable', retryable: false, exit: user },
  { error: new ReadOnlyViewError('a view of seq 3 is read-only'), code: 'read_only_view', retryable: false, exit: user },
  { error: new IncompatibleDatabaseError('/x.db', 'not-sqlite', 'is not a SQLite database'), code: 'incompatible', retryable: false, exit: corrupt },
  { error: new DatabaseNotFoundError('/x.db', 'no such file'), code: 'not_found', retryable: false, exit: user },
  { error: new DiskFullError('/x.db', 'no space left'), code: 'disk_full', retryable: false, exit: environment },
  { error: new ReadOnlyError('/x.db', 'read-only'), code: 'read_only', retryable: false, exit: environment },
  { error: new PermissionDeniedError('/x.db', 'permission denied'), code: 'permission_denied', retryable: false, exit: environment },
  { error: new NotAFileError('/x.db', 'a folder'), code: 'not_a_file', retryable: false, exit: environment },
  { error: new StorageIoError('/x.db', 'I/O error'), code: 'io', retryable: false, exit: environment },
  { error: new EmbeddingHttpError(429, 'slow down', 1), code: 'http', retryable: true, exit: user },
  { error: new EmbeddingHttpError(401, 'no key', 1), code: 'http', retryable: false, exit: user },
  { error: new EmbeddingTimeoutError(1000, 1), code: 'timeout', retryable: true, exit: environment },
  { error: new EmbeddingNetworkError(new Error('ECONNREFUSED'), 1), code: 'network', retryable: true, exit: environment },
  { error: new SyncHttpError(401, 'no token'), code: 'http', retryable: false, exit: user },
  { error: new SyncHttpError(undefined, 'connection reset'), code: 'network', retryable: true, exit: environment },
  { error: new EmbeddingResponseError('no data', 1), code: 'bad_response', retryable: false, exit: user },
  { error: new TableFormatError('truncated'), code: 'table_format', retryable: false, exit: user },
  { error: new ScopeDeniedError('outside this server'), code: 'scope_denied', retryable: false, exit: user },
  { error: new UsageError('--port must be a number'), code: 'usage', retryable: false, exit: user },
  { error: new UserError('the database path is empty'), code: 'usage', retryable: false, exit: user },
  { error: new DamagedDatabaseError('verification failed'), code: 'corruption', retryable: false, exit: corrupt },
  { error: new InterruptedError('SIGINT', 'sync stopped by SIGINT'), code: 'interrupted', retryable: false, exit: 130 },
];

/** Bases that are never raised themselves. */
const ABSTRACT: ReadonlySet<unknown> = new Set([AgentStateError, sqlite.StorageError, embeddings.EmbeddingError]);

const name = (row: Row): string => row.error.constructor.name;

describe('the error family', () => {
  it.each(TABLE.map((row) => [name(row), row] as const))('%s is an AgentStateError with its code, retryable flag and exit code', (_, row) => {
    expect(row.error).toBeInstanceOf(AgentStateError);
    expect(core.isAgentStateError(row.error)).toBe(true);
    expect(row.error.name).toBe(name(row));
    expect(row.error.code).toBe(row.code);
    expect(row.error.retryable).toBe(row.retryable);
    expect(exitCodeFor(row.error)).toBe(row.exit);
  });

  it('keeps the class hierarchy callers test with instanceof', () => {
    expect(sqlite.IncompatibleDatabaseError).toBe(core.IncompatibleDatabaseError);
    expect(postgres.IncompatibleDatabaseError).toBe(core.IncompatibleDatabaseError);
    expect(new OperationConflictError('reused')).toBeInstanceOf(ConflictError);
    for (const error of [new DiskFullError('/x', 'full'), new DatabaseNotFoundError('/x', 'missing')]) expect(error).toBeInstanceOf(sqlite.StorageError);
    for (const error of [new EmbeddingTimeoutError(1, 1), new EmbeddingHttpError(500, '', 2)]) {
      expect(error).toBeInstanceOf(embeddings.EmbeddingError);
      expect(embeddings.isEmbeddingError(error)).toBe(true);
    }
  });

  it('has a row for every error class the packages export', () => {
    const inTable = new Set(TABLE.map((row) => row.error.constructor));
    for (const [pkg, exports] of Object.entries({ core, sqlite, embeddings, mcp, cli })) {
      for (const [key, value] of Object.entries(exports)) {
        if (typeof value !== 'function' || !(value === Error || value.prototype instanceof Error)) continue;
        expect(value === AgentStateError || value.prototype instanceof AgentStateError, `${pkg}.${key} is an AgentStateError`).toBe(true);
        expect(inTable.has(value) || ABSTRACT.has(value), `${pkg}.${key} has a row`).toBe(true);
      }
    }
  });

  it('is documented, class by class, in the contract (docs/contract.md §3)', () => {
    const contract = readFileSync(new URL('../../../docs/contract.md', import.meta.url), 'utf8');
    const section = contract.slice(contract.indexOf('## 3. Errors'), contract.indexOf('## 4.'));
    for (const row of TABLE) {
      expect(section, name(row)).toContain(`| \`${row.code}\` | \`${name(row)}\``);
    }
  });

  it('exits 1 for errors agentstate did not raise on purpose', () => {
    expect(exitCodeFor(new TypeError('x'))).toBe(user);
    expect(exitCodeFor('a string')).toBe(user);
  });
});
