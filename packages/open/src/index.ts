/**
 * @agentstate/open — opens an agentstate database from a file path or a
 * `postgres://` URL with the defaults of the `agentstate` command and the
 * MCP server, and the exit codes those programs share.
 */
export { openDatabase, openLog, type Database, type DatabaseLog, type EmbedderChoice, type OpenLogOptions, type OpenOptions } from './open.js';
export { describeTarget, resolveTarget } from './target.js';
export { parsePoint } from './point.js';
export { DATABASE_ENV, DEFAULT_DATABASE_PATH, DURABILITY_ENV, SNAPSHOT_KEY_ENV } from './defaults.js';
export { MIN_HMAC_SECRET_BYTES, readSnapshotKey, resolveSnapshotKey, SnapshotKeyError, type SnapshotKey } from './snapshot-key.js';
export { ExitCode, exitCodeOf, type ExitCodeValue } from './exit-codes.js';
