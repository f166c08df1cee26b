/**
 * How much of the server the schema takes: every table of it with its
 * indexes and TOAST data, as `pg_total_relation_size` counts them (the
 * figure `agentstate stats` prints where SQLite prints its file's size).
 */
import type { Database } from './database.js';

/** The bytes the tables of `db`'s schema take on the server, indexes and TOAST included. */
export async function schemaBytes(db: Database): Promise<number> {
  const [row] = await db.rows<{ bytes: number }>(
    `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8 as bytes
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relkind in ('r', 'm', 'p')`,
    [db.schema],
  );
  return row?.bytes ?? 0;
}
