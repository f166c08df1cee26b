/**
 * The one place where the command's errors become exit codes (by error
 * `code`) and one-line messages. The codes are `ExitCode` of `@agentstate/open`, shared
 * with `agentstate mcp`: 0 success, 1 a user error (bad flags, bad input,
 * not found, conflict), 2 a damaged file or one that is not a usable
 * agentstate database, 3 the environment refused (disk full, read-only,
 * permission denied, not a file, I/O error).
 */
import { CommanderError } from 'commander';
import { AgentStateError } from '@agentstate/core';
import type { ExitCodeValue } from '@agentstate/open';
import { ExitCode, exitCodeOf } from '@agentstate/open';

/** A mistake of the person at the terminal (a flag, a file, a key): reported in one line, exit 1. */
export class UserError extends AgentStateError {
  readonly code = 'usage' as const;
}

/** The database is damaged or is not an agentstate database: exit 2. */
export class DamagedDatabaseError extends AgentStateError {
  readonly code = 'corruption' as const;
}

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown): ExitCodeValue {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.user;
  return exitCodeOf(error);
}

/** The error as one line of text, without the program name. */
export function describeError(error: unknown): string {
  let message: string;
  if (error instanceof CommanderError) message = error.message.replace(/^error: /, '');
  else if (error instanceof AgentStateError) message = error.message;
  else if (error instanceof Error) message = `unexpected ${error.name}: ${error.message}`;
  else message = `unexpected failure: ${String(error)}`;
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
