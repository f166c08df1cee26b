/**
 * The one error taxonomy of agentstate. Every error a store raises on purpose
 * is an {@link AgentStateError} with a stable `code`, so callers can branch on
 * `instanceof` or on `code` without parsing messages.
 */

/**
 * Stable machine-readable error codes. The last five come from the
 * environment, not the input: a full disk (or quota, or file-size limit), a
 * read-only file or folder, a permission, a path that is not a file, and any
 * other failure of the storage device.
 */
export type ErrorCode =
  | 'not_found'
  | 'conflict'
  | 'invalid'
  | 'corruption'
  | 'disk_full'
  | 'read_only'
  | 'permission_denied'
  | 'not_a_file'
  | 'io';

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
  ) {
    super(`${entity} not found: ${key}`);
  }
}

/** Optimistic concurrency failed, or a caller-supplied id is already taken. */
export class ConflictError extends AgentStateError {
  readonly code = 'conflict' as const;
  override readonly retryable = true;
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

/** True for any error raised by agentstate on purpose. */
export function isAgentStateError(error: unknown): error is AgentStateError {
  return error instanceof AgentStateError;
}
