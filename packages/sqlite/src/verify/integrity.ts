/**
 * SQLite's own check of the file: every page, every B-tree, every index
 * against its table (`PRAGMA integrity_check`, or `quick_check`), and the
 * structure of the FTS5 indexes, which SQLite checks through their virtual
 * tables. When the file-wide check finds something, each table is checked
 * on its own so that the problem can be put in its part of the file.
 */
import type { Repair, VerifyPart, VerifyProblem } from '@agentstate/core';
import { describeError } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';

/** Lines of SQLite's report kept per problem list. */
const MAX_LINES = 20;

/** The part a table or index belongs to, by name (indexes by their table). */
function partOf(table: string): VerifyPart {
  if (/^(events|snapshots|sqlite_schema|sqlite_master)$/.test(table)) return table === 'snapshots' ? 'snapshots' : 'log';
  if (/^(skills|memory|turns)_fts(_|$)/.test(table)) return 'fts';
  if (/^(memory|turn)_vec_\d+(_|$)/.test(table) || table === 'memory_vectors' || table === 'turn_vectors') return 'vectors';
  // The vector listing and the embedding cache are not re-derived by a rebuild.
  if (table === 'vector_indexes' || table === 'embedding_cache') return 'file';
  if (/^(sessions|turns|skills|memory|memory_meta|memory_epoch|operations|projection_state|memory_order)$/.test(table)) return 'tables';
  return 'file';
}

/** What repairs damage in a part. */
function repairOf(part: VerifyPart): Repair {
  return part === 'tables' || part === 'fts' || part === 'vectors' ? 'rebuild' : 'export-import';
}

function run(conn: Connection, pragma: string): string[] {
  const rows = conn.db.pragma(pragma) as Record<string, string>[];
  return rows.map((row) => String(Object.values(row)[0]));
}

function isOk(lines: readonly string[]): boolean {
  return lines.length === 1 && lines[0] === 'ok';
}

/**
 * Runs the check over the whole file and returns its problems, each in its
 * part. A file whose structure is too broken to check at all (the driver
 * throws) is one `file` problem.
 */
export function checkIntegrity(conn: Connection, quick: boolean): VerifyProblem[] {
  const pragma = quick ? 'quick_check' : 'integrity_check';
  let lines: string[];
  try {
    refreshFullTextIndexes(conn);
    lines = run(conn, `${pragma}(${MAX_LINES})`);
  } catch (error) {
    return [{ part: 'file', message: `SQLite cannot check the file: ${describeError(error)}`, repair: 'export-import' }];
  }
  if (isOk(lines)) return [];
  const problems: VerifyProblem[] = [];
  const localised = new Set<string>();
  for (const name of conn.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rootpage").pluck().all() as string[]) {
    let found: string[];
    try {
      found = run(conn, `${pragma}(${quoteIdent(name)})`);
    } catch (error) {
      found = [describeError(error)];
    }
    if (isOk(found)) continue;
    const part = partOf(name);
    for (const line of found) localised.add(line);
    problems.push({ part, object: name, message: `${name}: ${found.slice(0, 3).join('; ')}`, repair: repairOf(part) });
  }
  // What no single table owns (free pages, pages used twice, the schema itself) is damage to the file.
  const rest = lines.filter((line) => !localised.has(line));
  if (rest.length > 0) {
    problems.push({ part: 'file', message: rest.slice(0, 3).join('; '), repair: 'export-import' });
  }
  return problems;
}

/**
 * Makes each FTS5 index re-read its structure. An FTS5 table caches its
 * structure per connection and checks that cache against other writers
 * when it answers a query, but its integrity check trusts the cache: on a
 * connection that last touched an index before another process wrote it,
 * the check would report damage the file does not have.
 */
function refreshFullTextIndexes(conn: Connection): void {
  const names = conn.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5%'").pluck().all() as string[];
  for (const name of names) conn.prepare(`SELECT rowid FROM ${quoteIdent(name)} WHERE ${quoteIdent(name)} MATCH '"a"' LIMIT 1`).all();
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
