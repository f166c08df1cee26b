/**
 * The one place where errors become exit codes and one-line messages:
 * 0 success, 1 a user error (bad flags, bad input, not found, conflict),
 * 2 a corrupted database or a file that is not an agentstate database.
 */
import { CommanderError } from 'commander';
import { AgentStateError, CorruptionError } from '@agentstate/core';

/** Exit codes of the `agentstate` command. */
export const ExitCode = { ok: 0, user: 1, corrupt: 2 } as const;

/** A mistake of the person at the terminal: reported in one line, exit 1. */
export class UserError extends Error {
  override readonly name = 'UserError';
}

/** The database is damaged or is not an agentstate database: exit 2. */
export class DamagedDatabaseError extends Error {
  override readonly name = 'DamagedDatabaseError';
}

/** The SQLite driver's codes that mean the file itself is unusable. */
const DAMAGED_DRIVER_CODES = /^SQLITE_(NOTADB|CORRUPT)/;

function isDamaged(error: unknown): boolean {
  if (error instanceof CorruptionError || error instanceof DamagedDatabaseError) return true;
  if (!(error instanceof Error)) return false;
  // The SQLite provider's "not an agentstate database" (it extends ValidationError).
  if (error.name === 'IncompatibleDatabaseError') return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && DAMAGED_DRIVER_CODES.test(code);
}

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.user;
  if (isDamaged(error)) return ExitCode.corrupt;
  return ExitCode.user;
}

/** The error as one line of text, without the program name. */
export function describeError(error: unknown): string {
  let message: string;
  if (error instanceof CommanderError) message = error.message.replace(/^error: /, '');
  else if (error instanceof Error && error.name === 'IncompatibleDatabaseError') message = error.message.replace(/^invalid path: /, '');
  else if (error instanceof AgentStateError || error instanceof UserError || error instanceof DamagedDatabaseError) message = error.message;
  else if (isDamaged(error)) message = `not a usable agentstate database: ${(error as Error).message}`;
  else if (error instanceof Error) message = `unexpected ${error.name}: ${error.message}`;
  else message = `unexpected failure: ${String(error)}`;
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
