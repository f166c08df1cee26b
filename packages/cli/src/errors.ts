/**
 * The one place where errors become exit codes and one-line messages, by
 * error class: 0 success, 1 a user error (bad flags, bad input, not found,
 * conflict), 2 a damaged file or one that is not a usable agentstate
 * database, 3 the environment refused (disk full, read-only, permission
 * denied, not a file, I/O error).
 */
import { CommanderError } from 'commander';
import { AgentStateError, CorruptionError } from '@agentstate/core';
import { DatabaseNotFoundError, IncompatibleDatabaseError, StorageError } from '@agentstate/sqlite';

/** Exit codes of the `agentstate` command. */
export const ExitCode = { ok: 0, user: 1, corrupt: 2, environment: 3 } as const;

/** One of the {@link ExitCode} values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A mistake of the person at the terminal (a flag, a file, a key): reported in one line, exit 1. */
export class UserError extends AgentStateError {
  readonly code = 'usage' as const;
}

/** The database is damaged or is not an agentstate database: exit 2. */
export class DamagedDatabaseError extends AgentStateError {
  readonly code = 'corruption' as const;
}

/** A class of errors; abstract ones included. */
type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Exit codes by class, the first match wins, so a subclass comes before its
 * base: a missing database file is a {@link StorageError} but the user's to
 * fix. Every other error, of agentstate or not, exits 1.
 */
const EXIT_BY_CLASS: readonly (readonly [ErrorClass, ExitCodeValue])[] = [
  [DatabaseNotFoundError, ExitCode.user],
  [StorageError, ExitCode.environment],
  [CorruptionError, ExitCode.corrupt],
  [DamagedDatabaseError, ExitCode.corrupt],
  [IncompatibleDatabaseError, ExitCode.corrupt],
];

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown): ExitCodeValue {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.user;
  return EXIT_BY_CLASS.find(([type]) => error instanceof type)?.[1] ?? ExitCode.user;
}

/** The error as one line of text, without the program name. */
export function describeError(error: unknown): string {
  let message: string;
  if (error instanceof CommanderError) message = error.message.replace(/^error: /, '');
  else if (error instanceof IncompatibleDatabaseError) message = error.message.replace(/^invalid path: /, '');
  else if (error instanceof AgentStateError) message = error.message;
  else if (error instanceof Error) message = `unexpected ${error.name}: ${error.message}`;
  else message = `unexpected failure: ${String(error)}`;
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
