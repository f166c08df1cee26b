/**
 * Where programs on this backend (the `agentstate` command, `agentstate mcp`
 * and `agentstate-mcp`) find their database when none is named, decided once
 * here so that they open the same file. This module imports nothing, so that
 * a command can describe its flags without loading the backend: it is also
 * published alone as `@agentstate/sqlite/defaults`.
 */

/** The environment variable naming the database file. */
export const DATABASE_ENV = 'AGENTSTATE_DB';

/** The database file used when neither a flag nor {@link DATABASE_ENV} names one, under the working directory. */
export const DEFAULT_DATABASE_PATH = '.agentstate/state.db';

/** The environment variable choosing what the programs' writes survive: `power-loss` (default) or `process-crash`. */
export const DURABILITY_ENV = 'AGENTSTATE_DURABILITY';
