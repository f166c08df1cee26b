/**
 * Where programs on this backend (the `agentstate` command and the MCP
 * server) find their database when none is named. This module imports
 * nothing, so that a command can describe its flags without loading the
 * backend: it is also published alone as `@agentstate/sqlite/defaults`.
 */

/** The environment variable naming the database. */
export const DB_ENV = 'AGENTSTATE_DB';

/** The database used when neither a flag nor {@link DB_ENV} names one, under the working directory. */
export const DEFAULT_DB_PATH = '.agentstate/state.db';
