/**
 * The exit codes of every program on this backend (`agentstate`,
 * `agentstate mcp`, `agentstate-mcp`), by error class, so that a script
 * reads the same failure the same way whichever program it ran.
 */
import { CorruptionError } from '@agentstate/core';
import { DatabaseNotFoundError, IncompatibleDatabaseError, StorageError } from './errors.js';

/**
 * 0 success; 1 a user error (bad flags or input, not found, conflict); 2 a
 * damaged file, or one that is not a usable agentstate database; 3 the
 * environment refused (disk full, read-only, permission denied, not a file,
 * I/O error).
 */
export const ExitCode = { ok: 0, user: 1, corrupt: 2, environment: 3 } as const;

/** One of the {@link ExitCode} values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The exit code of a program that ended with `error`: {@link ExitCode}'s
 * `corrupt` for a damaged or foreign database, `environment` for a storage
 * failure (a missing database is the user's to fix), else `user`.
 */
export function exitCodeOf(error: unknown): ExitCodeValue {
  if (error instanceof CorruptionError || error instanceof IncompatibleDatabaseError) return ExitCode.corrupt;
  if (error instanceof StorageError && !(error instanceof DatabaseNotFoundError)) return ExitCode.environment;
  return ExitCode.user;
}
