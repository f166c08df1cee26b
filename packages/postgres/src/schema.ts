/**
 * Identifying and preparing agentstate's schema. Before anything is written
 * the schema is identified: tables of another application, or a log of a
 * newer version of this library, are refused with an
 * {@link IncompatibleDatabaseError} and left as they were. A fresh schema
 * is created in one step; a schema whose log or derived part has another
 * version (one made by the migrations of earlier versions among them) has
 * its log upgraded in place and loses its
 * whole derived part, which the caller folds again from the log in the
 * same transaction, unless its derived tables are this version's
 * (`SAME_TABLES_SINCE`) and its log at most one version behind: then its
 * log gains the origin columns in place and the functions of earlier versions
 * go, with nothing folded. All of it under a transaction-scoped advisory lock
 * named after the schema, then the writers' lock exclusive, so
 * processes opening together never race: the second waits, then finds the
 * work done.
 */
import type { Sql } from './database.js';
import { NotFoundError } from '@agentstate/core';
import { IncompatibleDatabaseError } from './errors.js';
import { schemaLockKeys } from './writers-lock.js';
import {
  DERIVED_SQL,
  DERIVED_TABLES,
  DERIVED_VERSION,
  DROP_FUNCTIONS_SQL,
  LOG_SQL,
  LOG_VERSION,
  ORIGIN_SQL,
  ORIGIN_UPGRADE_SINCE,
  POSITIONS_SQL,
  SAME_TABLES_SINCE,
  VERSIONS_TABLE,
  WRITERS_LOCK_KEY,
} from './schema-script.js';

/**
 * The table of the migrations that made schemas before the creation
 * script: versions 1 to 5. Their logs are upgraded (losing the notify
 * trigger, gaining the positions) and their derived parts folded again.
 */
const MIGRATIONS_TABLE = 'agentstate_migrations';
const LAST_MIGRATION = 5;

/** What an inspection found: no tables, a schema ready to use, or one whose derived part must be made again. */
export type SchemaFinding = 'fresh' | 'current' | 'stale';

/**
 * Whether the schema is ready to use as it is, without its lock: a crowd of
 * starting processes would queue on that for the common case. The versions
 * table is never dropped, so another process preparing the schema
 * meanwhile cannot fail this read.
 */
export async function isCurrent(sql: Sql, schema: string): Promise<boolean> {
  const [row] = await sql.rows<{ versions: string | null }>('SELECT to_regclass($1)::text AS versions', [`"${schema}".${VERSIONS_TABLE}`]);
  if (row?.versions == null) return false;
  const rows = await sql.rows<{ part: string; version: number }>(`SELECT part, version FROM "${schema}".${VERSIONS_TABLE}`);
  const version = (part: string): number | undefined => rows.find((r) => r.part === part)?.version;
  return version('log') === LOG_VERSION && version('derived') === DERIVED_VERSION;
}

/**
 * Identifies the schema without writing to it; `in place`: its tables are this version's, and its log and the
 * functions of its derived part of earlier versions dropped where they are.
 */
async function inspectSchema(sql: Sql, schema: string): Promise<SchemaFinding | 'in place'> {
  const tables = await sql.rows<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
    [schema],
  );
  if (tables.length === 0) return 'fresh';
  const names = new Set(tables.map((t) => t.relname));
  const newer = (version: number, latest: number): IncompatibleDatabaseError =>
    new IncompatibleDatabaseError(schema, 'newer-schema', `has schema version ${version}, newer than this library's ${latest}: upgrade @agentstate/postgres`);
  if (names.has(VERSIONS_TABLE)) {
    const rows = await sql.rows<{ part: string; version: number }>(`SELECT part, version FROM "${schema}".${VERSIONS_TABLE}`);
    const version = (part: string): number | undefined => rows.find((r) => r.part === part)?.version;
    const log = version('log') ?? 0;
    if (log > LOG_VERSION) throw newer(log, LOG_VERSION);
    const derived = version('derived') ?? 0;
    if (log < ORIGIN_UPGRADE_SINCE || derived > DERIVED_VERSION || derived < SAME_TABLES_SINCE) return 'stale';
    return log === LOG_VERSION && derived === DERIVED_VERSION ? 'current' : 'in place';
  }
  if (names.has(MIGRATIONS_TABLE)) {
    const [row] = await sql.rows<{ latest: number | null }>(`SELECT max(version) AS latest FROM "${schema}".${MIGRATIONS_TABLE}`);
    if ((row?.latest ?? 0) > LAST_MIGRATION) throw newer(row!.latest!, LAST_MIGRATION);
    return 'stale';
  }
  throw new IncompatibleDatabaseError(schema, 'not-agentstate', 'holds tables of another application, not an agentstate schema');
}

/** A script of the creation script's parts for one schema. */
function script(sql: string, schema: string): string {
  return sql.replaceAll('{schema}', `"${schema}"`);
}

/**
 * Brings `schema` to this library's versions inside the caller's
 * transaction: creates it when missing (unless not `create`: then a
 * `NotFoundError`, nothing created); when its log or derived part has
 * another version, upgrades its log (the positions of the `state` stream and
 * the origin columns it may lack; the trigger that notified subscribers from
 * inside every write, which it may have), drops the derived part and creates
 * it empty, holding the writers' lock exclusive. Returns what
 * it found; after `stale`, the caller folds the log into the empty tables
 * before committing. A caller that fails and rolls back leaves the schema
 * as it was, or no schema at all.
 */
export async function prepareSchema(sql: Sql, schema: string, create = true): Promise<SchemaFinding> {
  await sql.rows('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentstate:${schema}`]);
  const found = await inspectSchema(sql, schema);
  if (found === 'current') return found;
  const quoted = `"${schema}"`;
  // Its tables are this version's: the log gains its origin columns and the functions of earlier versions
  // go, in place; a log-only change folds nothing, as the tables fold the same events.
  if (found === 'in place') {
    await sql.rows(
      `${script(ORIGIN_SQL + DROP_FUNCTIONS_SQL, schema)}
       UPDATE ${quoted}.${VERSIONS_TABLE} SET version = CASE part WHEN 'log' THEN ${LOG_VERSION} ELSE ${DERIVED_VERSION} END WHERE part IN ('log', 'derived')`,
    );
    return 'current';
  }
  if (found === 'fresh') {
    if (!create) throw new NotFoundError('schema', schema, 'it holds no agentstate tables yet: a command that writes creates it');
    await sql.rows(`CREATE SCHEMA IF NOT EXISTS ${quoted}; ${script(LOG_SQL + DERIVED_SQL, schema)}`);
    return found;
  }
  // The lock a rebuild takes and every writer takes shared: no writer interleaves, and readers see the old tables until the commit.
  await sql.rows(`SELECT pg_advisory_xact_lock(${schemaLockKeys(WRITERS_LOCK_KEY, schema)})`);
  // A log of version 1 numbered its state events from the head row: its positions go on from its last.
  await sql.rows(
    `CREATE TABLE IF NOT EXISTS ${quoted}.${VERSIONS_TABLE} (part text PRIMARY KEY, version integer NOT NULL);
     INSERT INTO ${quoted}.${VERSIONS_TABLE} VALUES ('log', ${LOG_VERSION}) ON CONFLICT (part) DO UPDATE SET version = EXCLUDED.version;
     DROP TABLE IF EXISTS ${quoted}.${MIGRATIONS_TABLE};
     DROP FUNCTION IF EXISTS ${quoted}.notify_events() CASCADE;
     ${script(POSITIONS_SQL + ORIGIN_SQL + DROP_FUNCTIONS_SQL, schema)}
     SELECT setval('${quoted}.positions', greatest(max(seq), 1), max(seq) IS NOT NULL) FROM ${quoted}.events WHERE stream = 'state';
     DROP TABLE IF EXISTS ${DERIVED_TABLES.map((t) => `${quoted}.${t}`).join(', ')} CASCADE;
     ${script(DERIVED_SQL, schema)}`,
  );
  return found;
}
