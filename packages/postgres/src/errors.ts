/**
 * The one place where `pg`'s errors become agentstate's typed errors
 * (docs/contract.md §3). A lost connection or a server shutting down is a
 * retryable {@link ConnectionLostError}; a lock conflict or a serialization
 * failure a retryable `ConflictError`; a statement timeout a retryable
 * {@link StatementTimeoutError}; a full disk a `DiskFullError`-like
 * {@link ServerStorageError}. Nothing a caller can cause escapes as a raw
 * driver error.
 */
import { AgentStateError, ConflictError, ValidationError } from '@agentstate/core';
import { describeError } from '@agentstate/core/backend';

/** The refusal of a schema this library must not touch: core's, shared by every backend. */
export { IncompatibleDatabaseError, type IncompatibleReason } from '@agentstate/core';

/** The connection to the server failed or was lost; the write, if any, was not applied or was applied whole. Retry. */
export class ConnectionLostError extends AgentStateError {
  readonly code = 'network' as const;
  override readonly retryable = true;
}

/** A statement ran past `statementTimeoutMs`, or waiting for a connection timed out. Retry. */
export class StatementTimeoutError extends AgentStateError {
  readonly code = 'timeout' as const;
  override readonly retryable = true;
}

/** The server refused the statement for a reason of its own (disk full, out of memory, permissions, …). */
export class ServerStorageError extends AgentStateError {
  readonly code = 'io' as const;
  constructor(
    /** The server's SQLSTATE, when it gave one. */
    readonly sqlState: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Node's socket error codes that mean the server cannot be reached. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Maps any error to a typed one; agentstate's own errors pass through. */
export function mapPgError(error: unknown): AgentStateError {
  if (error instanceof AgentStateError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = describeError(error);
  const options = { cause: error };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return new ConnectionLostError(`cannot reach the PostgreSQL server: ${message}`, options);
    // 08: connection exception; 57P01-57P03: the server is shutting down or cannot accept connections.
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')
      return new ConnectionLostError(`the connection to the PostgreSQL server was lost: ${message}`, options);
    if (code === '57014') return new StatementTimeoutError(`the statement was cancelled: ${message}`, options);
    if (code === '40001' || code === '40P01' || code === '55P03' || code === '23505')
      return new ConflictError(`a concurrent transaction conflicted: ${message}`, options);
    if (code.startsWith('22') || code === '54000') return new ValidationError('', `PostgreSQL cannot store the value: ${message}`);
    // 28: the role or its password; 3D000: no such database. Refused at connecting, before any statement.
    const refused = code.startsWith('28') || code === '3D000' ? 'the connection' : 'the statement';
    return new ServerStorageError(code, `PostgreSQL refused ${refused} (${code}): ${message}`, options);
  }
  if (/timeout/i.test(message)) return new StatementTimeoutError(`timed out waiting for PostgreSQL: ${message}`, options);
  if (/Connection terminated|Client has encountered a connection error|not queryable|ended/i.test(message))
    return new ConnectionLostError(`the connection to the PostgreSQL server was lost: ${message}`, options);
  return new ServerStorageError(undefined, `PostgreSQL failed: ${message}`, options);
}
