import { AgentStateError } from '@agentstate/core';

/** A mistake in how the server was started: bad flags, unsafe options. */
export class UsageError extends AgentStateError {
  readonly code = 'usage' as const;
}
