/**
 * Transcript search over the `turns` table: live turns of live sessions,
 * newest first or by core's BM25, every candidate checked with core's
 * matcher (see `lexical.ts`), as memory recall is.
 */
import { type Turn, tokenize } from '@agentstate/core';
import type { Scored, StateQueries, TurnFilter, TurnQuery } from '@agentstate/core/backend';
import { compareTurnsNewestFirst, matchesTokensOf, Params, pastKeyset, rankByBm25, rowCodec } from '@agentstate/core/backend';
import { verifiedPages } from './candidates.js';
import type { Database } from './database.js';
import { lexicalCandidate, tsQuery } from './lexical.js';

/** The condition of live turns (aliased `t`) of live sessions passing `filter`. */
export function turnWhere(db: Database, p: Params, filter: TurnFilter, t = 't'): string {
  let where = `NOT ${t}.deleted AND EXISTS (SELECT 1 FROM ${db.t('sessions')} s WHERE s.id = ${t}.session_id AND NOT s.deleted)`;
  if (filter.sessionIds !== undefined) where += ` AND ${t}.session_id = ANY(${p.add(filter.sessionIds)}::text[])`;
  if (filter.roles !== undefined) where += ` AND ${t}.role = ANY(${p.add(filter.roles)}::text[])`;
  return where;
}

/** The transcript-search queries of a schema. */
export function turnQueries(db: Database): Pick<StateQueries, 'searchTurns' | 'turnNeighbours' | 'turns'> {
  return {
    turns: async (sessionId, { afterSeq, limit }) =>
      (
        await db.rows<rowCodec.TurnRow>(`SELECT * FROM ${db.t('turns')} WHERE session_id = $1 AND seq > $2 AND NOT deleted ORDER BY seq LIMIT $3`, [
          sessionId,
          Math.max(0, afterSeq),
          limit > 0 ? limit : null,
        ])
      ).map(rowCodec.turnFromRow),

    searchTurns: async (query: TurnQuery): Promise<Scored<Turn>[]> => {
      if (query.sessionIds?.length === 0 || query.roles?.length === 0) return [];
      const p = new Params();
      let where = turnWhere(db, p, query);
      const match = query.match ?? 'all';
      if (query.tokens.length > 0) where += ` AND ${lexicalCandidate('t', p.add(tsQuery(query.tokens, match)))}`;
      if (query.order === 'relevance' && query.tokens.length > 0) {
        const rows = await db.rows<rowCodec.TurnRow>(`SELECT t.* FROM ${db.t('turns')} t WHERE ${where}`, p.values);
        const matches = rows
          .map(rowCodec.turnFromRow)
          .flatMap((record) => (matchesTokensOf(query.tokens, record.content, match) ? [{ record, tokens: tokenize(record.content) }] : []));
        const ranked = rankByBm25(query.tokens, matches, compareTurnsNewestFirst).filter((h) =>
          pastKeyset(query.after, h.score, h.record.createdAt, h.record.id, -1),
        );
        return query.limit > 0 ? ranked.slice(0, query.limit) : ranked;
      }
      if (query.after !== undefined) where += ` AND (t.created_at, t.id) < (${p.add(query.after.sort)}, ${p.add(query.after.id)})`;
      const rows = await verifiedPages<rowCodec.TurnRow>(
        db,
        { text: `SELECT t.* FROM ${db.t('turns')} t WHERE ${where} ORDER BY t.created_at DESC, t.id DESC`, params: p },
        query.limit,
        (row) => matchesTokensOf(query.tokens, row.content, match),
      );
      return rows.map((row) => ({ record: rowCodec.turnFromRow(row), score: 1 }));
    },

    turnNeighbours: async (sessionId, seq, window) => {
      const before = await db.rows<rowCodec.TurnRow>(
        `SELECT * FROM ${db.t('turns')} WHERE session_id = $1 AND seq < $2 AND NOT deleted ORDER BY seq DESC LIMIT $3`,
        [sessionId, seq, window.before],
      );
      const after = await db.rows<rowCodec.TurnRow>(`SELECT * FROM ${db.t('turns')} WHERE session_id = $1 AND seq > $2 AND NOT deleted ORDER BY seq LIMIT $3`, [
        sessionId,
        seq,
        window.after,
      ]);
      return { before: before.reverse().map(rowCodec.turnFromRow), after: after.map(rowCodec.turnFromRow) };
    },
  };
}
