/**
 * The one place where the command's errors become exit codes (by error
 * `code`) and one-line messages. The codes are `ExitCode` of `@agentstate/open`, shared
 * with `agentstate mcp`: 0 success, 1 a user error (bad flags, bad input,
 * not found, conflict), 2 a damaged file or one that is not a usable
 * agentstate database, 3 the environment refused (disk full, read-only,
 * permission denied, not a file, I/O error); and 128 + n a command that
 * signal n stopped after keeping what it finished, as a shell reports a
 * process the signal ended.
 */
import { CommanderError } from 'commander';
import { AgentStateError } from '@agentstate/core';
import type { ExitCodeValue } from '@agentstate/open';
import { ExitCode, exitCodeOf } from '@agentstate/open';
import { signalExitCode } from './signals.js';

/** A mistake of the person at the terminal (a flag, a file, a key): reported in one line, exit 1. */
export class UserError extends AgentStateError {
  readonly code = 'usage' as const;
}

/** The database is damaged or is not an agentstate database: exit 2. */
export class DamagedDatabaseError extends AgentStateError {
  readonly code = 'corruption' as const;
}

/**
 * A signal (Ctrl-C, SIGTERM, SIGHUP) stopped a command that keeps what it
 * finished, a sync's batches: exit 128 + the signal's number.
 */
export class InterruptedError extends AgentStateError {
  readonly code = 'interrupted' as const;

  constructor(
    /** The signal that stopped the command. */
    readonly signal: NodeJS.Signals,
    message: string,
  ) {
    super(message);
  }
}

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown): ExitCodeValue | number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.user;
  if (error instanceof InterruptedError) return signalExitCode(error.signal);
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
