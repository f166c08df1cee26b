/**
 * The schema is owned by versioned migrations: ordered, checksummed,
 * forward-only, applied in one transaction under a transaction-scoped
 * advisory lock named after the schema, so processes starting together
 * never race (the second waits, then finds the work done). Before anything
 * is written the schema is identified: tables of another application, a
 * schema from a newer version of this library or a changed migration are
 * refused with an {@link IncompatibleDatabaseError} and left as they were.
 */
import type { Database, Sql } from '../database.js';
import { IncompatibleDatabaseError } from '../errors.js';
import { migration001 } from './001-initial.js';
import { migration002 } from './002-checkpoints.js';
import { migration003 } from './003-snapshot-bytes.js';
import { migration004 } from './004-notify.js';
import { migration005 } from './005-record-history.js';
import type { Migration } from './migration.js';
import { migrationChecksum, migrationSql } from './migration.js';

export type { Migration } from './migration.js';
export { migrationChecksum } from './migration.js';

/** Every migration, in order. Append new versions; never edit released ones. */
export const MIGRATIONS: readonly Migration[] = [migration001, migration002, migration003, migration004, migration005];

/** The schema version this library writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The table recording applied migrations; its presence marks a schema as agentstate's. */
export const MIGRATIONS_TABLE = 'agentstate_migrations';

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

/** What an inspection found: no tables at all (`fresh`), or the versions applied. */
export interface SchemaIdentity {
  fresh: boolean;
  applied: AppliedRow[];
}

/** Identifies the schema without writing to it. */
export async function inspectSchema(sql: Sql, schema: string, migrations: readonly Migration[] = MIGRATIONS): Promise<SchemaIdentity> {
  const tables = await sql.rows<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
    [schema],
  );
  if (tables.length === 0) return { fresh: true, applied: [] };
  if (!tables.some((t) => t.relname === MIGRATIONS_TABLE)) {
    throw new IncompatibleDatabaseError(schema, 'not-agentstate', 'holds tables of another application, not an agentstate schema');
  }
  const applied = await sql.rows<AppliedRow>(`SELECT version, name, checksum FROM "${schema}".${MIGRATIONS_TABLE} ORDER BY version`);
  const latest = migrations.length;
  for (const row of applied) {
    if (row.version > latest) {
      throw new IncompatibleDatabaseError(
        schema,
        'newer-schema',
        `has schema version ${Math.max(...applied.map((r) => r.version))}, newer than this library's ${latest}: upgrade @agentstate/postgres`,
      );
    }
    const known = migrations[row.version - 1]!;
    if (migrationChecksum(known) !== row.checksum) {
      throw new IncompatibleDatabaseError(schema, 'migration-changed', `migration ${row.version} (${row.name}) differs from the one applied to this schema`);
    }
  }
  return { fresh: false, applied };
}

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** Stop after this version (tests build schemas of earlier versions). Default: the latest. */
  target?: number;
  /** The migrations to apply. Default: {@link MIGRATIONS}. */
  migrations?: readonly Migration[];
}

/** Applies every pending migration up to `target` under the schema's advisory lock; returns the versions applied. */
export async function migrate(db: Database, options: MigrateOptions = {}): Promise<number[]> {
  const migrations = options.migrations ?? MIGRATIONS;
  const target = Math.min(options.target ?? migrations.length, migrations.length);
  const schema = db.schema;
  // Nothing to do is the common case: checked without the lock, which a crowd of starting processes would queue on.
  const seen = await inspectSchema(db, schema, migrations);
  if (seen.applied.length >= target) return [];
  return db.transaction((sql) => migrateInTransaction(sql, schema, options));
}

/**
 * Brings `schema` to the target version inside the caller's transaction
 * (creating it when missing), under the schema's advisory lock: a caller
 * that then fails and rolls back leaves no schema, table or function of it
 * behind.
 */
export async function migrateInTransaction(sql: Sql, schema: string, options: MigrateOptions = {}): Promise<number[]> {
  const migrations = options.migrations ?? MIGRATIONS;
  const target = Math.min(options.target ?? migrations.length, migrations.length);
  await sql.rows('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentstate:${schema}`]);
  const identity = await inspectSchema(sql, schema, migrations);
  const last = identity.applied.length === 0 ? 0 : identity.applied[identity.applied.length - 1]!.version;
  if (last !== identity.applied.length)
    throw new IncompatibleDatabaseError(schema, 'migration-changed', `records migration ${last} as its latest but not every one before it`);
  if (identity.fresh) {
    await sql.rows(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await sql.rows(`CREATE TABLE "${schema}".${MIGRATIONS_TABLE} (
        version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  }
  const done: number[] = [];
  for (const migration of migrations.slice(last, target)) {
    await sql.rows(migrationSql(migration, `"${schema}"`));
    await sql.rows(`INSERT INTO "${schema}".${MIGRATIONS_TABLE} (version, name, checksum) VALUES ($1, $2, $3)`, [
      migration.version,
      migration.name,
      migrationChecksum(migration),
    ]);
    done.push(migration.version);
  }
  return done;
}
