/**
 * The read-model queries of the PostgreSQL backend: point look-ups
 * (tombstones included) and ordered queries (live records only), with the
 * same orders, tie-breaks and lexical results as the in-memory reference.
 * Text orders compare in collation "C" (code-point order).
 */
import type { MemoryItem, Scope, Skill } from '@agentstate/core';
import type { LexicalQuery, MemoryFilter, Scored, StateQueries } from '@agentstate/core/backend';
import { compareMemoryNewestFirst, compareSkillsBySlug, descendantKeyRange, pastKeyset, scopeKey, skillSearchText } from '@agentstate/core/backend';
import { verifiedPages } from './candidates.js';
import type { Database } from './database.js';
import { lexicalCandidate, rankByRelevance, tsQuery, verifies } from './lexical.js';
import { tableLookups } from './lookups.js';
import { memoryRowFilter } from './metadata.js';
import { Params } from './params.js';
import type { MemoryRow, SessionRow, SkillRow } from './rows.js';
import { memoryFromRow, sessionFromRow, skillFromRow } from './rows.js';
import { matchesNothing, scopeCondition } from './scope-sql.js';
import { turnQueries } from './turn-queries.js';

/** The candidate rows of a lexical search of `skills` or `memory`, before ordering. */
function lexicalWhere(db: Database, p: Params, table: 'skills' | 'memory', query: LexicalQuery & MemoryFilter): string {
  let where = 'NOT r.deleted';
  if (query.tokens.length > 0) where += ` AND ${lexicalCandidate('r', p.add(tsQuery(query.tokens, query.match ?? 'all')))}`;
  const scoped = scopeCondition(p, query, 'r.scope_key');
  if (scoped) where += ` AND ${scoped}`;
  if (table === 'memory') {
    if (query.kinds !== undefined) where += ` AND r.kind = ANY(${p.add(query.kinds)}::text[])`;
    where += memoryRowFilter(p, query, 'r', db.t('memory_meta'));
  }
  return where;
}

/** A lexical search of `skills` or `memory`: ordered pages verified by core's matcher, or every match ranked by core's BM25. */
async function searchTable<R, T>(
  db: Database,
  table: 'skills' | 'memory',
  query: LexicalQuery & MemoryFilter,
  shape: {
    order: string;
    keyset: string;
    direction: 1 | -1;
    fromRow: (row: R) => T;
    text: (record: T) => string;
    sort: (record: T) => string;
    id: (record: T) => string;
    tieBreak: (a: T, b: T) => number;
  },
): Promise<Scored<T>[]> {
  const p = new Params();
  let where = lexicalWhere(db, p, table, query);
  const match = query.match ?? 'all';
  if (query.order === 'relevance' && query.tokens.length > 0) {
    const rows = await db.rows<R>(`SELECT r.* FROM ${db.t(table)} r WHERE ${where}`, p.values);
    const matches = rows.map(shape.fromRow).flatMap((record) => {
      const text = shape.text(record);
      return verifies(query.tokens, text, match) ? [{ record, text }] : [];
    });
    const ranked = rankByRelevance(query.tokens, matches, shape.tieBreak).filter((h) =>
      pastKeyset(query.after, h.score, shape.sort(h.record), shape.id(h.record), shape.direction),
    );
    return query.limit > 0 ? ranked.slice(0, query.limit) : ranked;
  }
  if (query.after !== undefined) where += ` AND ${shape.keyset.replace('$sort', p.add(query.after.sort)).replace('$id', p.add(query.after.id))}`;
  const rows = await verifiedPages<R>(db, { text: `SELECT r.* FROM ${db.t(table)} r WHERE ${where} ORDER BY ${shape.order}`, params: p }, query.limit, (row) =>
    verifies(query.tokens, shape.text(shape.fromRow(row)), match),
  );
  return rows.map((row) => ({ record: shape.fromRow(row), score: 1 }));
}

/** The {@link StateQueries} over a schema's projection tables. */
export function postgresQueries(db: Database): StateQueries {
  return {
    ...tableLookups(db, db),
    ...turnQueries(db),

    listSessions: async ({ limit, offset, after, ...filter }) => {
      if (matchesNothing(filter)) return [];
      const p = new Params();
      const scoped = scopeCondition(p, filter, 'scope_key');
      const rows = await db.rows<SessionRow>(
        `SELECT * FROM ${db.t('sessions')} WHERE NOT deleted${scoped ? ` AND ${scoped}` : ''}
         AND (created_at, id) > (${p.add(after?.sort ?? '')}, ${p.add(after?.id ?? '')})
         ORDER BY created_at, id LIMIT ${p.add(limit > 0 ? limit : null)} OFFSET ${p.add(Math.max(0, offset))}`,
        p.values,
      );
      return rows.map(sessionFromRow);
    },

    listSkills: async (scope: Scope, page) => {
      const p = new Params();
      const scoped = scopeCondition(p, page?.includeDescendants ? { scopes: [scope], descendantsOf: scope } : { scopes: [scope] }, 'scope_key')!;
      const limit = page?.limit ?? 0;
      const rows = await db.rows<SkillRow>(
        `SELECT * FROM ${db.t('skills')} WHERE ${scoped} AND NOT deleted
         AND (slug, id) > (${p.add(page?.after?.sort ?? '')}, ${p.add(page?.after?.id ?? '')})
         ORDER BY slug, id LIMIT ${p.add(limit > 0 ? limit : null)}`,
        p.values,
      );
      return rows.map(skillFromRow);
    },

    liveScopes: async (prefix: Scope) => {
      const { from, to } = descendantKeyRange(prefix);
      const under = (table: string) => `SELECT scope_key FROM ${db.t(table)} WHERE NOT deleted AND (scope_key = $1 OR (scope_key >= $2 AND scope_key < $3))`;
      const rows = await db.rows<{ scope_key: string }>(`${under('sessions')} UNION ${under('skills')} UNION ${under('memory')}`, [scopeKey(prefix), from, to]);
      return rows.map((row) => JSON.parse(row.scope_key) as Scope);
    },

    searchSkills: async (query: LexicalQuery) => {
      if (matchesNothing(query)) return [];
      return searchTable<SkillRow, Skill>(db, 'skills', query, {
        order: 'r.slug, r.id',
        keyset: '(r.slug, r.id) > ($sort, $id)',
        direction: 1,
        fromRow: skillFromRow,
        text: skillSearchText,
        sort: (s) => s.slug,
        id: (s) => s.id,
        tieBreak: compareSkillsBySlug,
      });
    },

    expiredMemory: async (now: string, limit: number) =>
      (
        await db.rows<MemoryRow>(
          `SELECT * FROM ${db.t('memory')} WHERE NOT deleted AND expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
          [now, Math.max(0, Math.trunc(limit))],
        )
      ).map(memoryFromRow),

    searchMemory: async (query: LexicalQuery & MemoryFilter) => {
      if (matchesNothing(query) || query.kinds?.length === 0) return [];
      return searchTable<MemoryRow, MemoryItem>(db, 'memory', query, {
        order: 'r.created_at DESC, r.id DESC',
        keyset: '(r.created_at, r.id) < ($sort, $id)',
        direction: -1,
        fromRow: memoryFromRow,
        text: (m) => m.content,
        sort: (m) => m.createdAt,
        id: (m) => m.id,
        tieBreak: compareMemoryNewestFirst,
      });
    },
  };
}
