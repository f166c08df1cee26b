/**
 * The errors of this package, members of core's one error family
 * ({@link AgentStateError}, docs/contract.md §3): a remote embedder's failed
 * request is an {@link EmbeddingError} with a `code` and a `retryable` flag;
 * a word-vector table that cannot be read is a {@link TableFormatError}. Bad
 * options are core's `ValidationError` instead, thrown when the embedder is
 * created.
 */
import type { ErrorCode } from '@agentstate/core';
import { AgentStateError } from '@agentstate/core';

/** Stable machine-readable codes of embedding request failures. */
export type EmbeddingErrorCode = Extract<ErrorCode, 'http' | 'timeout' | 'network' | 'bad_response'>;

/** Base class of every embedding request failure. */
export abstract class EmbeddingError extends AgentStateError {
  abstract override readonly code: EmbeddingErrorCode;
  /** How many attempts had been made when this was raised (1 = no retry). */
  readonly attempts: number;

  constructor(message: string, attempts: number, options?: { cause?: unknown }) {
    super(message, options);
    this.attempts = attempts;
  }
}

/** The server answered with a status other than 2xx. */
export class EmbeddingHttpError extends EmbeddingError {
  readonly code = 'http' as const;
  /** True for 408, 429 and 5xx: rate limits and server errors may pass. */
  override readonly retryable: boolean;

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The start of the response body (at most 1,000 characters). */
    readonly body: string,
    attempts: number,
    /** The wait the server asked for (`Retry-After`), in ms, if any. */
    readonly retryAfterMs?: number,
  ) {
    super(`embedding request failed with HTTP ${status}${describeBody(body)}`, attempts);
    this.retryable = status === 408 || status === 429 || status >= 500;
  }
}

/** No complete answer within the timeout. */
export class EmbeddingTimeoutError extends EmbeddingError {
  readonly code = 'timeout' as const;
  override readonly retryable = true;

  constructor(
    /** The per-attempt timeout that expired, in ms. */
    readonly timeoutMs: number,
    attempts: number,
  ) {
    super(`embedding request timed out after ${timeoutMs} ms`, attempts);
  }
}

/** The request never got an answer: connection refused or reset, DNS failure… */
export class EmbeddingNetworkError extends EmbeddingError {
  readonly code = 'network' as const;
  override readonly retryable = true;

  constructor(cause: unknown, attempts: number) {
    super(`embedding request failed: ${describeCause(cause)}`, attempts, { cause });
  }
}

/** A 2xx answer that is not a valid embeddings response for the request. */
export class EmbeddingResponseError extends EmbeddingError {
  readonly code = 'bad_response' as const;
  override readonly retryable = false;

  constructor(message: string, attempts: number, options?: { cause?: unknown }) {
    super(`bad embeddings response: ${message}`, attempts, options);
  }
}

/** A word-vector table's bytes are not a table this code can read, or a table to encode is malformed. */
export class TableFormatError extends AgentStateError {
  readonly code = 'table_format' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(`bad word-vector table: ${message}`, options);
  }
}

/** True for any embedding request failure. */
export function isEmbeddingError(error: unknown): error is EmbeddingError {
  return error instanceof EmbeddingError;
}

function describeBody(body: string): string {
  let message = body.trim();
  try {
    const parsed: unknown = JSON.parse(body);
    const error = (parsed as { error?: unknown } | null)?.error;
    const inner = typeof error === 'string' ? error : (error as { message?: unknown } | undefined)?.message;
    if (typeof inner === 'string') message = inner;
  } catch {
    // not JSON: keep the text
  }
  return message === '' ? '' : `: ${message.slice(0, 300)}`;
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
    return `${cause.message}${inner}`;
  }
  return String(cause);
}
