/**
 * The read-model queries of the PostgreSQL backend: point look-ups
 * (tombstones included) and ordered queries (live records only), with the
 * same orders, tie-breaks and lexical results as the in-memory reference.
 * Text orders compare in collation "C" (code-point order).
 */
import { type MemoryItem, type Scope, type Skill, type Turn, tokenize } from '@agentstate/core';
import type { LexicalQuery, MemoryFilter, Scored, StateQueries, TurnQuery } from '@agentstate/core/backend';
import {
  compareStrings,
  descendantKeyRange,
  matchesNoScope,
  matchesTokensOf,
  Params,
  pastKeyset,
  rankByBm25,
  recordFilter,
  scopeCondition,
  scopeKey,
  skillSearchText,
  rowCodec,
  turnWhere,
  verifiedPages as corePages,
} from '@agentstate/core/backend';
import { type Database, PLAN_EACH_RUN, type Sql } from './database.js';
import { lexicalCandidate, tsQuery } from './lexical.js';
import { onAlias, tableLookups } from './lookups.js';
import { postgresDialect } from './metadata.js';

/** What a lexical search of a table reads of its query. */
type SearchQuery = Pick<LexicalQuery, 'tokens' | 'limit' | 'order' | 'match' | 'after'>;

/** The rows of a search's statement, planned for its values ({@link PLAN_EACH_RUN}). */
async function searchRows<R>(sql: Sql, text: string, values: readonly unknown[]): Promise<R[]> {
  return (await sql.batch([PLAN_EACH_RUN, [text, values]]))[1] as R[];
}

/**
 * Runs a candidate query (without its `LIMIT`) page by page, keeping rows
 * that pass the exact check, until `limit` are kept (0: all).
 */
async function verifiedPages<R>(sql: Sql, query: { text: string; params: Params }, limit: number, keep: (row: R) => boolean): Promise<R[]> {
  const values = query.params.values;
  const text = `${query.text} LIMIT $${values.length + 1} OFFSET $${values.length + 2}`;
  return corePages((l, o) => searchRows<R>(sql, text, [...values, l < 0 ? null : l, o]), limit, keep);
}

/**
 * Newest rows (in the search's order) checked for a match before the GIN
 * index is asked. PostgreSQL estimates a prefix `tsquery` to match a few
 * dozen rows when it matches thousands, so it reads every candidate through
 * the GIN index and sorts them, instead of walking the order's index and
 * stopping early; this window does the walk.
 */
const ORDER_WINDOW = 1_000;

/**
 * The first `limit` verified matches among the {@link ORDER_WINDOW} first
 * rows in order, or `undefined` when the window holds fewer (then matches
 * may lie beyond it). Every row before the window's last was checked, so
 * the matches found are the first of all.
 */
async function windowMatches<R>(
  db: Database,
  table: string,
  { order, columns }: Pick<TableShape<R, unknown>, 'order' | 'columns'>,
  rest: string,
  tsquery: string,
  p: Params,
  limit: number,
  keep: (row: R) => boolean,
): Promise<R[] | undefined> {
  // The window holds only what the full-text check needs; full rows are read for its candidates only.
  // No `*`, so the statement is prepared (`Pipeline`).
  const rows = await searchRows<R & { window_rows: number }>(
    db,
    `WITH w AS MATERIALIZED (SELECT r.n, r.search, r.deleted FROM ${db.t(table)} r WHERE ${rest} ORDER BY ${order} LIMIT ${ORDER_WINDOW})
     SELECT ${columns}, (SELECT count(w.n) FROM w) AS window_rows FROM w JOIN ${db.t(table)} r ON r.n = w.n WHERE ${lexicalCandidate('w', tsquery)} ORDER BY ${order}`,
    p.values,
  );
  const kept: R[] = [];
  for (const row of rows) {
    if (!keep(row)) continue;
    kept.push(row);
    if (kept.length >= limit) return kept;
  }
  // A window that ran out of rows held every row in scope: its matches are all there are.
  return rows.length > 0 && rows[0]!.window_rows < ORDER_WINDOW ? kept : undefined;
}

/** What relevance order reads of a candidate: enough to verify and score it, not the record. */
interface Candidate {
  id: string;
  /** The sort key of the tie-break (`slug`, or `created_at`). */
  sort: string;
  /** The row's version: the full row read afterwards must be the one scored. */
  sync_version: number;
}

/** How a table is searched: its order in SQL and in JavaScript, and how its rows become records and searchable text. */
interface TableShape<R, T> {
  /** The columns of its rows, on alias `r`. */
  columns: string;
  order: string;
  keyset: string;
  direction: 1 | -1;
  fromRow: (row: R) => T;
  text: (record: T) => string;
  /** The columns relevance order reads of a candidate: `sort`, and those `candidateText` needs. */
  candidateColumns: string;
  /** The searchable text of a candidate's columns, equal to `text` of its record. */
  candidateText: (row: Record<string, unknown>) => string;
}

/**
 * Relevance order: reads only the id, sort key, version and searchable text
 * of every candidate, verifies and ranks them with core's matcher and BM25
 * (as the in-memory reference does), and reads full rows for the page kept.
 * Those rows are read after the candidates, so a row written in between is
 * seen by its version changing; then the whole search runs again in one
 * snapshot (`REPEATABLE READ`), which no write can change.
 */
async function searchByRelevance<R extends { id: string; sync_version: number }, T>(
  db: Database,
  table: string,
  query: SearchQuery,
  shape: TableShape<R, T>,
  where: string,
  p: Params,
): Promise<Scored<T>[]> {
  const match = query.match ?? 'all';
  const tieBreak = (a: Candidate, b: Candidate) => (compareStrings(a.sort, b.sort) || compareStrings(a.id, b.id)) * shape.direction;
  const search = async (sql: Sql): Promise<Scored<T>[] | undefined> => {
    const rows = await searchRows<Record<string, unknown> & Candidate>(
      sql,
      `SELECT r.id, r.sync_version, ${shape.candidateColumns} FROM ${db.t(table)} r WHERE ${where}`,
      p.values,
    );
    const matches = rows.flatMap((row) => {
      const text = shape.candidateText(row);
      return matchesTokensOf(query.tokens, text, match)
        ? [{ record: { id: row.id, sort: row.sort, sync_version: row.sync_version }, tokens: tokenize(text) }]
        : [];
    });
    const ranked = rankByBm25(query.tokens, matches, tieBreak).filter((h) => pastKeyset(query.after, h.score, h.record.sort, h.record.id, shape.direction));
    const page = query.limit > 0 ? ranked.slice(0, query.limit) : ranked;
    if (page.length === 0) return [];
    const full = new Map(
      (await sql.rows<R>(`SELECT ${shape.columns} FROM ${db.t(table)} r WHERE r.id = ANY($1::text[])`, [page.map((h) => h.record.id)])).map((row) => [
        row.id,
        row,
      ]),
    );
    const out: Scored<T>[] = [];
    for (const hit of page) {
      const row = full.get(hit.record.id);
      if (row === undefined || row.sync_version !== hit.record.sync_version) return undefined;
      out.push({ record: shape.fromRow(row), score: hit.score });
    }
    return out;
  };
  // In one snapshot the rows read second are those scored, so the second run always answers.
  return (await search(db)) ?? (await db.transaction(async (sql) => (await search(sql))!, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'));
}

/**
 * A lexical search of a table (aliased `r`, its rows meeting `where`): ordered pages verified by core's
 * matcher, or every match ranked by core's BM25.
 */
async function searchTable<R extends { id: string; sync_version: number }, T>(
  db: Database,
  table: 'skills' | 'memory' | 'turns',
  query: SearchQuery,
  shape: TableShape<R, T>,
  where: (p: Params) => string,
): Promise<Scored<T>[]> {
  const p = new Params();
  const tsquery = query.tokens.length > 0 ? p.add(tsQuery(query.tokens, query.match ?? 'all')) : undefined;
  const rest = where(p);
  const lexical = tsquery === undefined ? undefined : lexicalCandidate('r', tsquery);
  const match = query.match ?? 'all';
  if (query.order === 'relevance' && lexical !== undefined) return searchByRelevance(db, table, query, shape, `${rest} AND ${lexical}`, p);
  const keyset = query.after === undefined ? '' : ` AND ${shape.keyset.replace('$sort', p.add(query.after.sort)).replace('$id', p.add(query.after.id))}`;
  const keep = (row: R) => matchesTokensOf(query.tokens, shape.text(shape.fromRow(row)), match);
  const windowed =
    tsquery === undefined || query.limit <= 0 ? undefined : await windowMatches<R>(db, table, shape, rest + keyset, tsquery, p, query.limit, keep);
  const all = `${rest}${lexical === undefined ? '' : ` AND ${lexical}`}${keyset}`;
  const rows =
    windowed ??
    (await verifiedPages<R>(db, { text: `SELECT ${shape.columns} FROM ${db.t(table)} r WHERE ${all} ORDER BY ${shape.order}`, params: p }, query.limit, keep));
  return rows.map((row) => ({ record: shape.fromRow(row), score: 1 }));
}

/** The {@link StateQueries} over a schema's projection tables. */
export function postgresQueries(db: Database): StateQueries {
  const d = postgresDialect(db);
  const records = (query: LexicalQuery & MemoryFilter) => (p: Params) => `NOT r.deleted${recordFilter(d, p, query, 'r')}`;
  return {
    ...tableLookups(db, db),

    listSessions: async ({ limit, offset, after, ...filter }) => {
      if (matchesNoScope(filter)) return [];
      const p = new Params();
      const scoped = scopeCondition(d, p, filter, 'scope_key');
      const rows = await db.rows<rowCodec.SessionRow>(
        `SELECT ${rowCodec.SESSION_COLUMNS} FROM ${db.t('sessions')} WHERE NOT deleted${scoped ? ` AND ${scoped}` : ''}
         AND (created_at, id) > (${p.add(after?.sort ?? '')}, ${p.add(after?.id ?? '')})
         ORDER BY created_at, id LIMIT ${p.add(limit > 0 ? limit : null)} OFFSET ${p.add(Math.max(0, offset))}`,
        p.values,
      );
      return rows.map(rowCodec.sessionFromRow);
    },

    listSkills: async (scope: Scope, page) => {
      const p = new Params();
      const scoped = scopeCondition(d, p, page?.includeDescendants ? { scopes: [scope], descendantsOf: scope } : { scopes: [scope] }, 'scope_key')!;
      const limit = page?.limit ?? 0;
      const rows = await db.rows<rowCodec.SkillRow>(
        `SELECT ${rowCodec.SKILL_COLUMNS} FROM ${db.t('skills')} WHERE ${scoped} AND NOT deleted
         AND (slug, id) > (${p.add(page?.after?.sort ?? '')}, ${p.add(page?.after?.id ?? '')})
         ORDER BY slug, id LIMIT ${p.add(limit > 0 ? limit : null)}`,
        p.values,
      );
      return rows.map(rowCodec.skillFromRow);
    },

    liveScopes: async (prefix: Scope) => {
      const { from, to } = descendantKeyRange(prefix);
      const under = (table: string) => `SELECT scope_key FROM ${db.t(table)} WHERE NOT deleted AND (scope_key = $1 OR (scope_key >= $2 AND scope_key < $3))`;
      const rows = await db.rows<{ scope_key: string }>(`${under('sessions')} UNION ${under('skills')} UNION ${under('memory')}`, [scopeKey(prefix), from, to]);
      return rows.map((row) => JSON.parse(row.scope_key) as Scope);
    },

    searchSkills: async (query: LexicalQuery) => {
      if (matchesNoScope(query)) return [];
      return searchTable<rowCodec.SkillRow, Skill>(
        db,
        'skills',
        query,
        {
          columns: onAlias('r', rowCodec.SKILL_COLUMNS),
          order: 'r.slug, r.id',
          keyset: '(r.slug, r.id) > ($sort, $id)',
          direction: 1,
          fromRow: rowCodec.skillFromRow,
          text: skillSearchText,
          candidateColumns: 'r.slug AS sort, r.name, r.body, r.tags',
          candidateText: (row) => [row.sort, row.name, row.body, ...(JSON.parse(row.tags as string) as string[])].join(' '),
        },
        records(query),
      );
    },

    expiredMemory: async (now: string, limit: number) =>
      (
        await db.rows<rowCodec.MemoryRow>(
          `SELECT ${rowCodec.MEMORY_COLUMNS} FROM ${db.t('memory')} WHERE NOT deleted AND expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at COLLATE "C", id COLLATE "C" LIMIT $2`,
          [now, Math.max(0, Math.trunc(limit))],
        )
      ).map(rowCodec.memoryFromRow),

    searchMemory: async (query: LexicalQuery & MemoryFilter) => {
      if (matchesNoScope(query) || query.kinds?.length === 0) return [];
      return searchTable<rowCodec.MemoryRow, MemoryItem>(db, 'memory', query, newestFirst(rowCodec.memoryFromRow, rowCodec.MEMORY_COLUMNS), records(query));
    },

    turns: async (sessionId, { afterSeq, limit }) =>
      (
        await db.rows<rowCodec.TurnRow>(
          `SELECT ${rowCodec.TURN_COLUMNS} FROM ${db.t('turns')} WHERE session_id = $1 AND seq > $2 AND NOT deleted ORDER BY seq LIMIT $3`,
          [sessionId, Math.max(0, afterSeq), limit > 0 ? limit : null],
        )
      ).map(rowCodec.turnFromRow),

    turnNeighbours: async (sessionId, seq, window) => {
      const before = await db.rows<rowCodec.TurnRow>(
        `SELECT ${rowCodec.TURN_COLUMNS} FROM ${db.t('turns')} WHERE session_id = $1 AND seq < $2 AND NOT deleted ORDER BY seq DESC LIMIT $3`,
        [sessionId, seq, window.before],
      );
      const after = await db.rows<rowCodec.TurnRow>(
        `SELECT ${rowCodec.TURN_COLUMNS} FROM ${db.t('turns')} WHERE session_id = $1 AND seq > $2 AND NOT deleted ORDER BY seq LIMIT $3`,
        [sessionId, seq, window.after],
      );
      return { before: before.reverse().map(rowCodec.turnFromRow), after: after.map(rowCodec.turnFromRow) };
    },

    searchTurns: async (query: TurnQuery) => {
      if (query.sessionIds?.length === 0 || query.roles?.length === 0) return [];
      return searchTable<rowCodec.TurnRow, Turn>(db, 'turns', query, newestFirst(rowCodec.turnFromRow, rowCodec.TURN_COLUMNS), (p) =>
        turnWhere(d, p, query, 'r'),
      );
    },
  };
}

/** The shape of a table of `columns` searched newest first whose searchable text is its `content`. */
function newestFirst<R extends { id: string; sync_version: number }, T extends { content: string }>(fromRow: (row: R) => T, columns: string): TableShape<R, T> {
  return {
    columns: onAlias('r', columns),
    order: 'r.created_at DESC, r.id DESC',
    keyset: '(r.created_at, r.id) < ($sort, $id)',
    direction: -1,
    fromRow,
    text: (record) => record.content,
    candidateColumns: 'r.created_at AS sort, r.content AS text',
    candidateText: (row) => row.text as string,
  };
}
