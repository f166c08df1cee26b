/** The errors of the inspector's server, and the HTTP status each error code answers with. */
import type { ErrorCode } from '@agentstate/core';
import { AgentStateError } from '@agentstate/core';

/** A request the API cannot answer as asked: a bad parameter or an unknown route. */
export class UiRequestError extends AgentStateError {
  readonly code = 'invalid' as const;
}

/** A write asked of a server started without `allowWrites`. */
export class WritesDisabledError extends AgentStateError {
  readonly code = 'read_only' as const;
  constructor() {
    super('this inspector is read-only: start it with --allow-writes to delete records');
  }
}

/** Options the server refuses before it listens (a short token, a bad port). */
export class UiOptionsError extends AgentStateError {
  readonly code = 'invalid' as const;
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  read_only: 403,
  read_only_view: 403,
  closed: 503,
  unavailable: 503,
};

/** The HTTP status of an error thrown while answering: its code's, else 500. */
export function statusOf(error: unknown): number {
  return error instanceof AgentStateError ? (STATUS[error.code] ?? 500) : 500;
}
