/**
 * The schema is owned by versioned migrations: ordered, checksummed,
 * forward-only, each applied in its own write transaction. Before anything
 * is written, the file is identified: a file that is not SQLite, a SQLite
 * file of another application, a schema from a newer version of this
 * library, or a changed migration is refused with an
 * {@link IncompatibleDatabaseError} and left exactly as it was.
 */
import type { Connection } from '../connection.js';
import { IncompatibleDatabaseError } from '../errors.js';
import { migration001 } from './001-log.js';
import { migration002 } from './002-projection.js';
import { migration003 } from './003-vectors.js';
import { migration004 } from './004-identity.js';
import { migration005 } from './005-projection-v2.js';
import { migration006 } from './006-checkpoints.js';
import { migration007 } from './007-checkpoint-values.js';
import { migration008 } from './008-record-history.js';
import { migration009 } from './009-fts-secure-delete.js';
import { migration010 } from './010-checkpoint-keys.js';
import { migration011 } from './011-lean-turns.js';
import { migration012 } from './012-purged-turns.js';
import { migration013 } from './013-history-runs.js';
import type { Migration } from './migration.js';
import { migrationChecksum } from './migration.js';

export type { Migration } from './migration.js';
export { migrationChecksum } from './migration.js';

/** Every migration, in order. Append new versions; never edit released ones. */
export const MIGRATIONS: readonly Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004,
  migration005,
  migration006,
  migration007,
  migration008,
  migration009,
  migration010,
  migration011,
  migration012,
  migration013,
];

/** The schema version this library writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** `PRAGMA application_id` of an agentstate database: "agst". */
export const APPLICATION_ID = 0x61677374;

const MIGRATIONS_TABLE = 'agentstate_migrations';

/** A migration recorded as applied. */
interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

/** What an inspection found. */
export interface DatabaseIdentity {
  /** True for a file with no schema at all (new or empty). */
  fresh: boolean;
  /** Versions already applied. */
  applied: AppliedRow[];
}

/**
 * Identifies the file without writing to it. Throws
 * {@link IncompatibleDatabaseError} for anything this library must not touch.
 */
export function inspectDatabase(conn: Connection, migrations: readonly Migration[] = MIGRATIONS): DatabaseIdentity {
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
  if (applicationId === 0 && objects === 0) return { fresh: true, applied: [] };
  if (applicationId !== APPLICATION_ID) {
    throw new IncompatibleDatabaseError(conn.path, 'not-agentstate', 'is a SQLite database of another application, not an agentstate database');
  }
  const applied = readApplied(conn);
  checkApplied(conn.path, applied, migrations);
  return { fresh: false, applied };
}

function readApplied(conn: Connection): AppliedRow[] {
  const table = conn.db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(MIGRATIONS_TABLE);
  if (!table) return [];
  return conn.db.prepare(`SELECT version, name, checksum FROM ${MIGRATIONS_TABLE} ORDER BY version`).all() as AppliedRow[];
}

function checkApplied(path: string, applied: readonly AppliedRow[], migrations: readonly Migration[]): void {
  const latest = migrations.length;
  for (const row of applied) {
    if (row.version > latest) {
      throw new IncompatibleDatabaseError(
        path,
        'newer-schema',
        `has schema version ${Math.max(...applied.map((r) => r.version))}, newer than this library's ${latest}: upgrade @agentstate/sqlite`,
      );
    }
    const known = migrations[row.version - 1]!;
    if (migrationChecksum(known) !== row.checksum) {
      throw new IncompatibleDatabaseError(path, 'migration-changed', `migration ${row.version} (${row.name}) differs from the one applied to this file`);
    }
  }
}

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** Stop after this version (tests build files of earlier schemas). Default: the latest. */
  target?: number;
  /** The migrations to apply. Default: {@link MIGRATIONS}. */
  migrations?: readonly Migration[];
}

/**
 * Applies every pending migration up to `target`, each in its own
 * `BEGIN IMMEDIATE` transaction that re-reads what is applied (another
 * process may be migrating the same file). Returns the versions it applied.
 */
export function migrate(conn: Connection, options: MigrateOptions = {}): number[] {
  const migrations = options.migrations ?? MIGRATIONS;
  const target = Math.min(options.target ?? migrations.length, migrations.length);
  const done: number[] = [];
  // What is applied is read without the write lock, which a file already migrated (every open but its first) never needs:
  // a migration once applied stays applied, and one that is not is looked up again under the lock.
  const applied = new Set(readApplied(conn).map((row) => row.version));
  for (const migration of migrations.slice(0, target)) {
    if (applied.has(migration.version)) continue;
    conn.immediate(() => {
      const identity = inspectDatabase(conn, migrations);
      if (identity.applied.some((row) => row.version === migration.version)) return;
      const last = identity.applied.length === 0 ? 0 : identity.applied[identity.applied.length - 1]!.version;
      if (last !== migration.version - 1)
        throw new IncompatibleDatabaseError(
          conn.path,
          'migration-changed',
          `records migration ${last} as its latest, so migration ${migration.version} cannot be applied in order`,
        );
      if (identity.fresh) {
        conn.db.pragma(`application_id = ${APPLICATION_ID}`);
        conn.db.exec(`CREATE TABLE ${MIGRATIONS_TABLE} (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`);
      }
      conn.db.exec(migration.sql);
      migration.after?.(conn);
      conn.db
        .prepare(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, checksum, applied_at) VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`)
        .run(migration.version, migration.name, migrationChecksum(migration));
      done.push(migration.version);
    });
  }
  return done;
}

/** The versions applied to the file, in order. */
export function appliedVersions(conn: Connection): number[] {
  return readApplied(conn).map((row) => row.version);
}
