/**
 * The schema of a file: the durable log (`log.ts`) and the structures
 * derived from it (`derived.ts`), each with one version kept in
 * `store_meta`. Before anything is written, the file is identified: a file
 * that is not SQLite, a SQLite file of another application, or one whose
 * log or derived version is newer than this library's is refused with an
 * {@link IncompatibleDatabaseError} and left exactly as it was. A new file
 * is created in one step. A file whose derived version differs (every file
 * of schema 1 to 13, which recorded migrations and no derived version) has
 * its log upgraded, every derived structure dropped and created again and
 * folded from the log, in one transaction: a crash or a bad event leaves
 * the file as it was.
 */
import { UnavailableError } from '@agentstate/core';
import type { Connection } from '../connection.js';
import { IncompatibleDatabaseError } from '../errors.js';
import { DERIVED_SQL, DERIVED_VERSION } from './derived.js';
import { LOG_SQL, LOG_VERSION, ORIGIN_UPGRADE_SQL, STORE_META_SQL } from './log.js';

export { DERIVED_VERSION, FTS_OPTIONS, TURN_FTS_OPTIONS } from './derived.js';
export { LOG_VERSION } from './log.js';

/** `PRAGMA application_id` of an agentstate database: "agst". */
export const APPLICATION_ID = 0x61677374;

/** The tables a fold never writes: everything else is dropped when the derived version differs. */
const DURABLE = new Set(['events', 'store_meta']);

/** What an inspection found. */
export interface DatabaseIdentity {
  /** True for a file with no schema at all (new or empty). */
  fresh: boolean;
  /** The log version recorded (a file of schema 1 to 13 recorded none: its log is version 1). */
  log: number;
  /** The derived version recorded; 0 for none. */
  derived: number;
}

/**
 * Identifies the file without writing to it. Throws
 * {@link IncompatibleDatabaseError} for anything this library must not touch.
 */
export function inspectDatabase(conn: Connection): DatabaseIdentity {
  let applicationId: number;
  let objects: number;
  try {
    applicationId = Number(conn.db.pragma('application_id', { simple: true }));
    objects = Number((conn.db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number }).n);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code?.startsWith('SQLITE_CORRUPT')) {
      throw new IncompatibleDatabaseError(conn.path, 'not-sqlite', 'is not a SQLite database');
    }
    throw error;
  }
  if (applicationId === 0 && objects === 0) return { fresh: true, log: 0, derived: 0 };
  if (applicationId !== APPLICATION_ID) {
    throw new IncompatibleDatabaseError(conn.path, 'not-agentstate', 'is a SQLite database of another application, not an agentstate database');
  }
  const identity = { fresh: false, ...readVersions(conn) };
  if (identity.log > LOG_VERSION || identity.derived > DERIVED_VERSION) {
    throw new IncompatibleDatabaseError(
      conn.path,
      'newer-schema',
      `has log version ${identity.log} and derived version ${identity.derived}, newer than this library's ${LOG_VERSION} and ${DERIVED_VERSION}: upgrade @agentstate/sqlite`,
    );
  }
  return identity;
}

function readVersions(conn: Connection): { log: number; derived: number } {
  const table = conn.db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'store_meta'`).get();
  const rows = table
    ? (conn.db.prepare(`SELECT key, value FROM store_meta WHERE key IN ('log_version', 'derived_version')`).all() as { key: string; value: string }[])
    : [];
  const version = (key: string) => Number(rows.find((row) => row.key === key)?.value ?? 0);
  // Files of schema 1 to 13 recorded no log version: theirs is version 1.
  return { log: version('log_version') || 1, derived: version('derived_version') };
}

const isCurrent = (identity: DatabaseIdentity): boolean => !identity.fresh && identity.log === LOG_VERSION && identity.derived === DERIVED_VERSION;

/**
 * Refuses, for a read-only open, a file that needs a write before it can be
 * read: a new one, or one whose derived structures must be folded again.
 */
export function requireCurrentSchema(path: string, identity: DatabaseIdentity): void {
  if (isCurrent(identity)) return;
  const found = identity.fresh
    ? 'has no agentstate schema yet'
    : identity.derived !== DERIVED_VERSION
      ? `was written by an earlier version of this library (derived version ${identity.derived}, this library's ${DERIVED_VERSION}): its tables must be folded again from its log, which writes`
      : `was written by an earlier version of this library (log version ${identity.log}, this library's ${LOG_VERSION}): its log must gain the origin of received events, which writes`;
  throw new IncompatibleDatabaseError(path, 'needs-migration', `${found}; open it writable once first`);
}

/**
 * Brings the file's schema to this library's, in one `BEGIN IMMEDIATE`
 * transaction that looks again at what it found (another process may be
 * opening the same file): creates a new file, or upgrades an older one's
 * log, drops its derived structures, creates them again and runs `refold`
 * to fill them. Without `refold` (a log opened on its own), the tables stay
 * empty and behind the log, and the next provider to open the file folds it.
 */
export function prepareSchema(conn: Connection, found: DatabaseIdentity, refold?: (conn: Connection) => void): void {
  if (isCurrent(found)) return;
  conn.immediate(() => {
    const identity = inspectDatabase(conn);
    if (isCurrent(identity)) return;
    if (identity.fresh) {
      conn.db.pragma(`application_id = ${APPLICATION_ID}`);
      conn.db.exec(LOG_SQL + DERIVED_SQL);
    } else {
      conn.db.exec(STORE_META_SQL);
      if (identity.log < 2) conn.db.exec(ORIGIN_UPGRADE_SQL);
      if (identity.derived !== DERIVED_VERSION) {
        dropDerived(conn);
        conn.db.exec(DERIVED_SQL);
      }
    }
    conn.db
      .prepare(`INSERT INTO store_meta (key, value) VALUES ('log_version', ?), ('derived_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`)
      .run(String(LOG_VERSION), String(DERIVED_VERSION));
    // A log-only upgrade keeps the tables: they fold the same events.
    if (!identity.fresh && identity.derived !== DERIVED_VERSION) refold?.(conn);
  });
}

/** Drops every table but the durable ones (indexes go with them), whatever schema wrote them. */
function dropDerived(conn: Connection): void {
  const tables = conn.db.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as {
    name: string;
    sql: string;
  }[];
  // Virtual tables first: each drops its own shadow tables, which are then gone.
  const virtual = tables.filter((table) => /^CREATE VIRTUAL TABLE/i.test(table.sql));
  if (!conn.vectorsLoaded && virtual.some((table) => /USING\s+vec0/i.test(table.sql)))
    throw new UnavailableError('this database holds vectors: folding it again needs sqlite-vec (install it, never with --omit=optional)');
  for (const { name } of [...virtual, ...tables.filter((table) => !virtual.includes(table))])
    if (!DURABLE.has(name)) conn.db.exec(`DROP TABLE IF EXISTS "${name.replaceAll('"', '""')}"`);
}
