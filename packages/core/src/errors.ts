/**
 * The one error family of agentstate (docs/contract.md §3). The other
 * packages subclass {@link AgentStateError}; their codes are listed here so
 * one union names them all.
 */

/** Stable machine-readable error codes (docs/contract.md §3), never renamed or reused. */
export type ErrorCode =
  // What the call asked for.
  | 'not_found'
  | 'conflict'
  | 'invalid'
  | 'closed'
  | 'read_only_view'
  // Two replicas that cannot be merged (sync).
  | 'diverged'
  // What is stored.
  | 'corruption'
  | 'incompatible'
  | 'seal_failed'
  // The environment, not the input.
  | 'disk_full'
  | 'read_only'
  | 'permission_denied'
  | 'not_a_file'
  | 'io'
  | 'unavailable'
  // Embedding requests (@agentstate/embeddings) and the embedder's word table.
  | 'http'
  | 'timeout'
  | 'network'
  | 'bad_response'
  | 'table_format'
  // The faces: a mistake in a command line, a scope an MCP server refuses, a command a signal stopped.
  | 'usage'
  | 'scope_denied'
  | 'interrupted';

/** Base class of every error agentstate raises on purpose. */
export abstract class AgentStateError extends Error {
  /** Stable discriminant, safe to switch on. */
  abstract readonly code: ErrorCode;
  /** Whether retrying the same call may succeed (for example after a conflict). */
  readonly retryable: boolean = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The record asked for does not exist, or is a tombstone. */
export class NotFoundError extends AgentStateError {
  readonly code = 'not_found' as const;
  constructor(
    /** What kind of record was looked up: `session`, `skill`, `memory`… */
    readonly entity: string,
    /** The id or slug that was looked up. */
    readonly key: string,
    /** What the caller can do about it, appended to the message. */
    hint?: string,
  ) {
    super(hint === undefined ? `${entity} not found: ${key}` : `${entity} not found: ${key} (${hint})`);
  }
}

/** A slug named without a scope is not live in the global scope but is live in `scopes` (docs/contract.md §4, "Skills"). */
export class SkillScopeRequiredError extends NotFoundError {
  constructor(
    slug: string,
    /** The scopes where the slug is live, in scope order. */
    readonly scopes: readonly (readonly string[])[],
    /** `scopes` as the message names them (`project:p, project:q`). */
    described: string,
  ) {
    super('skill', slug, `not in the global scope; live in ${described}: pass a scope to name one`);
  }
}

/** Optimistic concurrency failed, or a caller-supplied id is already taken. */
export class ConflictError extends AgentStateError {
  readonly code = 'conflict' as const;
  override readonly retryable: boolean = true;
}

/** An `operationId` was already used with another input or for another method: a {@link ConflictError} no retry can resolve. */
export class OperationConflictError extends ConflictError {
  override readonly retryable: boolean = false;
}

/** A sync that cannot be applied, and nothing of its batch was written (docs/contract.md §3 and §12, "Receive"). */
export class SyncConflictError extends AgentStateError {
  readonly code = 'diverged' as const;
  constructor(
    readonly reason: 'replaced' | 'copy' | 'concurrent' | 'order',
    /** The replica id the refused event came from. */
    readonly origin: string,
    /** Its seq there. */
    readonly originSeq: number,
    message: string,
    /** The id of the record both replicas changed (`concurrent`). */
    readonly record?: string,
  ) {
    super(message);
  }
}

/** A sync request over HTTP failed without one of the typed errors the server maps to JSON (docs/contract.md §3, §12). */
export class SyncHttpError extends AgentStateError {
  readonly code: 'http' | 'network';
  override readonly retryable: boolean;
  constructor(
    /** The HTTP status; undefined when no answer came. */
    readonly status: number | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = status === undefined ? 'network' : 'http';
    this.retryable = status === undefined || status === 408 || status === 429 || status >= 500;
  }
}

/** Bad input: wrong type, unknown enum value, NUL characters, over a size limit… */
export class ValidationError extends AgentStateError {
  readonly code = 'invalid' as const;
  constructor(
    /** Dotted path of the offending field (`''` for the input as a whole). */
    readonly field: string,
    message: string,
  ) {
    super(field ? `invalid ${field}: ${message}` : `invalid input: ${message}`);
  }
}

/** A text over its token limit (a working memory document, docs/contract.md §4). */
export class TokenLimitError extends ValidationError {
  constructor(
    field: string,
    /** The tokens the text counted. */
    readonly tokens: number,
    /** The limit it went over. */
    readonly maxTokens: number,
  ) {
    super(field, `counts ${tokens} tokens, over the limit of ${maxTokens}`);
  }
}

/** An export that cannot be imported; `line` names the offending line when there is one. */
export class ExportFormatError extends AgentStateError {
  readonly code = 'invalid' as const;
  constructor(
    message: string,
    /** The 1-based line number of the refused line, when one is to blame. */
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}

/** A stored event or snapshot that cannot be decoded. */
export class CorruptionError extends AgentStateError {
  readonly code = 'corruption' as const;
  constructor(
    /** The stream the broken event or snapshot belongs to. */
    readonly stream: string,
    /** Its sequence number. */
    readonly seq: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`corrupt ${stream}#${seq}: ${message}`, options);
  }
}

/** Why a database (a SQLite file, a PostgreSQL schema) cannot be opened as agentstate's. */
export type IncompatibleReason =
  | 'empty'
  | 'truncated'
  | 'not-sqlite'
  | 'not-agentstate'
  | 'newer-schema'
  | 'migration-changed'
  | 'needs-migration'
  | 'behind-log';

/** The database is not one this library can open, and nothing was changed; one class for every backend. */
export class IncompatibleDatabaseError extends AgentStateError {
  readonly code = 'incompatible' as const;
  constructor(
    /** The file path or schema that was opened. */
    readonly database: string,
    /** A machine-readable reason. */
    readonly reason: IncompatibleReason,
    message: string,
  ) {
    super(`${database}: ${message}`);
  }
}

/** The provider, database or write transaction was used after it was closed or committed. */
export class ClosedError extends AgentStateError {
  readonly code = 'closed' as const;
}

/** An optional part the call needs is not installed or cannot be loaded. */
export class UnavailableError extends AgentStateError {
  readonly code = 'unavailable' as const;
}

/** A write was asked of a read-only view of the state at an earlier point (`provider.at`). */
export class ReadOnlyViewError extends AgentStateError {
  readonly code = 'read_only_view' as const;
}

/** True for any error raised by agentstate on purpose. */
export function isAgentStateError(error: unknown): error is AgentStateError {
  return error instanceof AgentStateError;
}
