/**
 * What a remote embedder raises when a request fails. One base class with a
 * `code` discriminant and a `retryable` flag; bad options are core's
 * `ValidationError` instead, thrown when the embedder is created.
 */

/** Stable machine-readable codes of embedding failures. */
export type EmbeddingErrorCode = 'http' | 'timeout' | 'network' | 'bad_response';

/** Base class of every embedding request failure. */
export abstract class EmbeddingError extends Error {
  /** Stable discriminant, safe to switch on. */
  abstract readonly code: EmbeddingErrorCode;
  /** Whether the same request may succeed later (rate limits, server errors, timeouts, network). */
  abstract readonly retryable: boolean;
  /** How many attempts had been made when this was raised (1 = no retry). */
  readonly attempts: number;

  constructor(message: string, attempts: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.attempts = attempts;
  }
}

/** The server answered with a status other than 2xx. */
export class EmbeddingHttpError extends EmbeddingError {
  readonly code = 'http' as const;
  readonly retryable: boolean;

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
    this.retryable = isRetryableStatus(status);
  }
}

/** No complete answer within the timeout. */
export class EmbeddingTimeoutError extends EmbeddingError {
  readonly code = 'timeout' as const;
  readonly retryable = true;

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
  readonly retryable = true;

  constructor(cause: unknown, attempts: number) {
    super(`embedding request failed: ${describeCause(cause)}`, attempts, { cause });
  }
}

/** A 2xx answer that is not a valid embeddings response for the request. */
export class EmbeddingResponseError extends EmbeddingError {
  readonly code = 'bad_response' as const;
  readonly retryable = false;

  constructor(message: string, attempts: number, options?: { cause?: unknown }) {
    super(`bad embeddings response: ${message}`, attempts, options);
  }
}

/** True for any embedding request failure. */
export function isEmbeddingError(error: unknown): error is EmbeddingError {
  return error instanceof EmbeddingError;
}

/** 408, 429 and every 5xx may succeed when retried. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
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
