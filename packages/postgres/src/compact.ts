/**
 * Compaction after a purge on PostgreSQL (docs/contract.md §7, "Purge"): a
 * purge rewrites rows, and PostgreSQL keeps the old row versions, with the
 * erased text, in the heap and index pages (a plain `VACUUM` marks them
 * free but does not zero them) and in the WAL (the rows themselves and the
 * full-page images of the pages they were on). `VACUUM FULL` writes every
 * table of the schema and its indexes into new files and drops the old
 * ones; a `CHECKPOINT`, a WAL switch and a second `CHECKPOINT` then put
 * every segment written before past the redo point, where the server
 * removes it, unless a setting keeps it: those the server reports are
 * returned as steps left to the operator.
 */
import type { Database } from './database.js';
import { ServerStorageError } from './errors.js';

/** What {@link compactSchema} did, and what it leaves to the operator. */
export interface PostgresCompactResult {
  /** The tables of the schema rewritten with `VACUUM FULL` (with their indexes and TOAST tables). */
  tables: string[];
  /** The tables this role does not own, which it may not rewrite: an owner must run `VACUUM FULL` on them. */
  skipped: string[];
  /** Whether the `CHECKPOINT`, WAL switch, `CHECKPOINT` ran; false when this role lacks the right (superuser, or `pg_checkpoint` and `EXECUTE` on `pg_switch_wal`). */
  walSwitched: boolean;
  /** What still keeps WAL written before the compaction on this server, each as the step that ends it; empty: nothing the server reports. */
  remaining: string[];
}

/**
 * The steps no library call can take, which erase what a purge leaves
 * outside the schema's live files: printed by `agentstate purge` on a
 * PostgreSQL database and kept in docs/contract.md §7 and the package README.
 */
export const POSTGRES_ERASURE_STEPS: readonly string[] = [
  'run the compaction (`agentstate purge --compact`, or `provider.compact()`): VACUUM FULL of the schema’s tables, then CHECKPOINT, pg_switch_wal(), CHECKPOINT; it locks each table while it rewrites it',
  'set wal_recycle = off (a recycled WAL segment keeps its old bytes until they are overwritten), and no wal_keep_size, replication slot or archiving that keeps segments from before the compaction',
  'delete or let expire the WAL archives and base backups taken before the purge, and the exports made before it',
  'on each standby, which received the text by replication: run CHECKPOINT there after it has replayed the compaction, under the same WAL settings',
  'server logs that record statements with their parameters (log_statement, log_min_duration_statement) hold the text: rotate them out',
];

/** SQLSTATE of a statement this role may not run. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** Rewrites the schema's tables and moves the WAL past them; see the module comment. Each table is locked (`ACCESS EXCLUSIVE`) while it is rewritten. */
export async function compactSchema(db: Database): Promise<PostgresCompactResult> {
  const tables = await db.rows<{ name: string; owned: boolean }>(
    `SELECT c.relname AS name, pg_has_role(c.relowner, 'USAGE') AS owned
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.relname`,
    [db.schema],
  );
  const done: string[] = [];
  // One statement per table (VACUUM runs outside a transaction): a table is locked only while it is rewritten.
  for (const { name, owned } of tables) {
    if (!owned) continue;
    await db.script(`VACUUM (FULL) ${db.t(`"${name}"`)}`);
    done.push(name);
  }
  let walSwitched = true;
  try {
    await db.script('CHECKPOINT');
    await db.script('SELECT pg_switch_wal()');
    await db.script('CHECKPOINT');
  } catch (error) {
    if (!(error instanceof ServerStorageError && error.sqlState === INSUFFICIENT_PRIVILEGE)) throw error;
    walSwitched = false;
  }
  return { tables: done, skipped: tables.filter((t) => !t.owned).map((t) => t.name), walSwitched, remaining: await walKeepers(db, walSwitched) };
}

/** The settings and slots of the server that keep WAL segments from before the compaction, each as the step that ends it. */
async function walKeepers(db: Database, walSwitched: boolean): Promise<string[]> {
  const [s] = await db.rows<{ recycle: string; keep: string; archive: string; slots: number }>(
    `SELECT current_setting('wal_recycle') AS recycle, current_setting('wal_keep_size') AS keep,
            current_setting('archive_mode') AS archive, (SELECT count(*) FROM pg_replication_slots) AS slots`,
  );
  const out: string[] = [];
  if (!walSwitched) out.push('as a superuser (or a role with pg_checkpoint and EXECUTE on pg_switch_wal): CHECKPOINT; SELECT pg_switch_wal(); CHECKPOINT');
  if (s!.recycle === 'on') out.push('wal_recycle is on: set it off (ALTER SYSTEM SET wal_recycle = off; SELECT pg_reload_conf()) and compact again');
  if (s!.keep !== '0') out.push(`wal_keep_size is ${s!.keep}: segments up to that size are kept; set it to 0 or wait until that much WAL is written`);
  if (s!.slots > 0) out.push(`${s!.slots} replication slot(s) keep WAL until their consumers confirm it: advance or drop them`);
  if (s!.archive !== 'off') out.push('archive_mode is on: the archive holds copies of the segments; delete those from before the compaction');
  return out;
}
