/**
 * Where the faces (the `agentstate` command, `agentstate mcp`,
 * `agentstate-mcp`) and `openDatabase` find their database and settings
 * when none is named. This module imports nothing, so that a command can
 * describe its flags without loading a backend: it is also published alone
 * as `@agentstate/open/defaults`.
 */

/** The environment variable naming the database: a file path or a `postgres://` URL. */
export const DATABASE_ENV = 'AGENTSTATE_DB';

/** The database file used when neither an argument nor {@link DATABASE_ENV} names one, under the working directory. */
export const DEFAULT_DATABASE_PATH = '.agentstate/state.db';

/** The environment variable choosing what writes to a SQLite file survive: `power-loss` (default) or `process-crash`. */
export const DURABILITY_ENV = 'AGENTSTATE_DURABILITY';

/** The environment variable naming the file of the key stored snapshots are sealed with. */
export const SNAPSHOT_KEY_ENV = 'AGENTSTATE_SNAPSHOT_KEY';
