/**
 * `verify()` on PostgreSQL: checks a schema and says what is damaged and
 * what repairs it, in one read-only REPEATABLE READ transaction, so every
 * check sees the same committed state while other processes keep writing.
 * Core's replay check reads the whole log back (dense seqs, every row's
 * checksum, full payload validation) and compares the tables and every
 * stored snapshot with its replay, and the history index (`record_events`)
 * with the replay's; then what only this backend derives: the metadata
 * index and the full-text columns. Writers may be in flight: the snapshot
 * holds the committed events, with gaps where others are still to commit,
 * and the tables are their fold.
 * The server checks its own pages (data checksums, `amcheck`): that is not
 * repeated here. Nothing is written.
 */
import type { Snapshot, VerifyProblem, VerifyReport } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';
import type { VerifyOptions } from '@agentstate/core/backend';
import { checkMetadataIndex, listed, skillSearchText, verifyReport } from '@agentstate/core/backend';
import type { PostgresBackend } from './backend.js';
import type { Sql } from './database.js';
import { indexLexemes } from './lexical.js';
import { valueColumn } from './metadata.js';

/** Verifies `backend`'s schema; see the module comment. */
export function verifySchema(backend: PostgresBackend, options: VerifyOptions): Promise<VerifyReport> {
  const { db, log } = backend;
  return db.transaction(
    (sql) =>
      verifyReport(
        {
          first: () => lostEvents(backend, sql),
          capture: () => guarded(sql, () => backend.captureIn(sql)),
          source: log.readerIn(sql),
          otherStreams: async () =>
            (await sql.rows<{ stream: string }>(`SELECT stream FROM ${db.t('streams')} WHERE stream <> $1 ORDER BY stream`, [STATE_STREAM])).map(
              (s) => s.stream,
            ),
          historyIndex: async () =>
            (await sql.rows<{ record_id: string; seq: number }>(`SELECT record_id, seq FROM ${db.t('record_events')}`)).map((row) => ({
              recordId: row.record_id,
              seq: Number(row.seq),
            })),
          codec: backend.codec,
          upcasters: backend.upcasters,
          derived: (tables) =>
            tables === undefined
              ? []
              : [
                  ['tables', () => guarded(sql, () => checkMetadata(backend, sql))],
                  ['fts', () => guarded(sql, () => checkFullText(backend, sql, tables))],
                ],
        },
        options,
      ),
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  );
}

/**
 * Events the history index names that the log no longer holds. Positions may skip numbers (docs/contract.md §7,
 * "Positions"), so a deleted event leaves no gap to find; the index, written with each event, still names it.
 */
async function lostEvents(backend: PostgresBackend, sql: Sql): Promise<VerifyProblem[]> {
  const { db } = backend;
  const [row] = await sql.rows<{ seq: string | null; count: string }>(
    `SELECT min(r.seq) AS seq, count(DISTINCT r.seq) AS count FROM ${db.t('record_events')} r
      WHERE NOT EXISTS (SELECT 1 FROM ${db.t('events')} e WHERE e.stream = $1 AND e.seq = r.seq)`,
    [STATE_STREAM],
  );
  if (row?.seq == null) return [];
  const more = Number(row.count) > 1 ? ` and ${Number(row.count) - 1} more` : '';
  return [
    { part: 'log', object: 'events', message: `the log has lost the event at seq ${row.seq}${more}, which the history index names`, repair: 'restore-backup' },
  ];
}

/** Runs `fn` under a savepoint, so a statement that fails leaves the transaction usable. */
async function guarded<T>(sql: Sql, fn: () => Promise<T>): Promise<T> {
  await sql.rows('SAVEPOINT verify_check');
  try {
    const result = await fn();
    await sql.rows('RELEASE verify_check');
    return result;
  } catch (error) {
    await sql.rows('ROLLBACK TO verify_check');
    throw error;
  }
}

/** `memory_meta` against the metadata of the live memory rows, leaf by leaf (core's check). */
async function checkMetadata(backend: PostgresBackend, sql: Sql): Promise<VerifyProblem[]> {
  const { db } = backend;
  const stored = await sql.rows<{ item_n: number; path: string; type: string; text_value: string | null; number_value: number | null }>(
    `SELECT item_n, path, type, text_value, number_value FROM ${db.t('memory_meta')}`,
  );
  return checkMetadataIndex(
    await sql.rows<{ n: number; metadata: string }>(`SELECT n, metadata FROM ${db.t('memory')} WHERE NOT deleted`),
    stored.map((leaf) => ({ ...leaf, value: valueColumn(leaf.type) === 'text_value' ? leaf.text_value : leaf.number_value })),
  );
}

/** Each record's `search` column against the lexemes of its text: live rows indexed exactly, others empty. */
async function checkFullText(backend: PostgresBackend, sql: Sql, tables: Snapshot): Promise<VerifyProblem[]> {
  const { db } = backend;
  const texts = {
    turns: new Map(tables.turns.filter((t) => !t.deleted).map((t) => [t.id, t.content])),
    skills: new Map(tables.skills.filter((s) => !s.deleted).map((s) => [s.id, skillSearchText(s)])),
    memory: new Map(tables.memory.filter((m) => !m.deleted).map((m) => [m.id, m.content])),
  };
  const problems: VerifyProblem[] = [];
  for (const [table, live] of Object.entries(texts)) {
    const wrong: string[] = [];
    const rows = await sql.rows<{ id: string; lexemes: string[] | null }>(`SELECT id, tsvector_to_array(search) AS lexemes FROM ${db.t(table)}`);
    for (const row of rows) {
      const text = live.get(row.id);
      const expected = text === undefined ? null : indexLexemes(text);
      const same = expected === null || row.lexemes === null ? expected === row.lexemes : sameSet(expected, row.lexemes);
      if (!same) wrong.push(row.id);
    }
    if (wrong.length)
      problems.push({
        part: 'fts',
        object: `${table}.search`,
        message: `${table}: ${wrong.length} rows indexed for other text (${listed(wrong)})`,
        repair: 'rebuild',
      });
  }
  return problems;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  return left.size === new Set(b).size && b.every((x) => left.has(x));
}
