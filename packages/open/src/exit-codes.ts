/**
 * The exit codes of every program (`agentstate`, `agentstate mcp`,
 * `agentstate-mcp`), by error `code` and never by class, so that a script
 * reads the same failure the same way whichever program ran and whichever
 * backend (a SQLite file, a PostgreSQL schema) raised it.
 */
import type { ErrorCode } from '@agentstate/core';
import { isAgentStateError } from '@agentstate/core';

/**
 * 0 success; 1 a user error (bad flags or input, not found, conflict); 2 a
 * damaged database, or one that is not a usable agentstate database; 3 the
 * environment refused (disk full, read-only, permission denied, not a file,
 * I/O error, a server that cannot be reached or timed out).
 */
export const ExitCode = { ok: 0, user: 1, corrupt: 2, environment: 3 } as const;

/** One of the {@link ExitCode} values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The codes that are not the user's: every other code (a missing database among them) exits `user`. */
const EXIT_BY_CODE: ReadonlyMap<ErrorCode, ExitCodeValue> = new Map<ErrorCode, ExitCodeValue>([
  ['corruption', ExitCode.corrupt],
  ['incompatible', ExitCode.corrupt],
  ['disk_full', ExitCode.environment],
  ['read_only', ExitCode.environment],
  ['permission_denied', ExitCode.environment],
  ['not_a_file', ExitCode.environment],
  ['io', ExitCode.environment],
  ['network', ExitCode.environment],
  ['timeout', ExitCode.environment],
]);

/**
 * The exit code of a program that ended with `error`, by its `code`:
 * {@link ExitCode}'s `corrupt` for a damaged or foreign database,
 * `environment` for a refusal of the storage or the server, else `user`.
 */
export function exitCodeOf(error: unknown): ExitCodeValue {
  return isAgentStateError(error) ? (EXIT_BY_CODE.get(error.code) ?? ExitCode.user) : ExitCode.user;
}
