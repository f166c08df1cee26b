/**
 * The one place where SQLite's errors become agentstate's typed errors
 * (STYLE: one taxonomy, each backend maps its driver errors in one place).
 * Callers never see a raw driver error for anything their input can cause.
 */
import { AgentStateError, ConflictError, CorruptionError, ValidationError } from '@agentstate/core';

/** Why a file cannot be opened as an agentstate database. */
export type IncompatibleReason = 'not-sqlite' | 'not-agentstate' | 'newer-schema' | 'migration-changed';

/**
 * The file at `path` is not a database this library can open: not SQLite,
 * a SQLite file of another application, a schema from a newer version, or a
 * migration whose recorded checksum differs. Nothing was changed.
 */
export class IncompatibleDatabaseError extends ValidationError {
  constructor(
    /** The path that was opened. */
    readonly path: string,
    /** A machine-readable reason. */
    readonly reason: IncompatibleReason,
    message: string,
  ) {
    super('path', `${path}: ${message}`);
  }
}

/** The shape of better-sqlite3's `SqliteError`. */
interface DriverError {
  name: string;
  code: string;
  message: string;
}

function isDriverError(error: unknown): error is DriverError {
  return error instanceof Error && error.name === 'SqliteError' && typeof (error as { code?: unknown }).code === 'string';
}

/**
 * Maps a driver error to an agentstate error; other errors pass through
 * unchanged. Environmental failures (I/O, disk full, permissions) are not
 * caused by input and keep the driver's error, with its `code`.
 */
export function mapSqliteError(error: unknown): unknown {
  if (error instanceof AgentStateError || !isDriverError(error)) return error;
  const code = error.code;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new ConflictError(`the database is busy (another connection holds the write lock): ${error.message}`, { cause: error });
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return new ConflictError(`a stored record conflicts: ${error.message}`, { cause: error });
  }
  if (code === 'SQLITE_TOOBIG') return new ValidationError('', `a value is too large for the database: ${error.message}`);
  if (code === 'SQLITE_RANGE' || code === 'SQLITE_MISMATCH') return new ValidationError('', error.message);
  if (code === 'SQLITE_NOTADB') return new IncompatibleDatabaseError('(database)', 'not-sqlite', error.message);
  // A read past the end of the file: the file was cut short, which is damage, not an I/O failure.
  if (code === 'SQLITE_IOERR_SHORT_READ') return new CorruptionError('database', 0, `the database file is truncated: ${error.message}`, { cause: error });
  if (code.startsWith('SQLITE_CORRUPT')) return new CorruptionError('database', 0, `the database file is damaged: ${error.message}`, { cause: error });
  // sqlite-vec reports bad vectors with a plain SQLITE_ERROR.
  if (code === 'SQLITE_ERROR' && /dimension|vector|float32|k value/i.test(error.message)) return new ValidationError('vector', error.message);
  return error;
}

/** Runs `fn`, rethrowing driver errors mapped by {@link mapSqliteError}. */
export function mapErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw mapSqliteError(error);
  }
}

/** Like {@link mapErrors} for async work. */
export async function mapErrorsAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw mapSqliteError(error);
  }
}
