/** The transcript reads of the `turns` table: a session's turns and a turn's neighbours, and which turns a search sees. */
import type { Params, StateQueries, TurnFilter } from '@agentstate/core/backend';
import { rowCodec } from '@agentstate/core/backend';
import type { Database } from './database.js';

/** The condition of live turns (aliased `t`) of live sessions passing `filter`. */
export function turnWhere(db: Database, p: Params, filter: TurnFilter, t = 't'): string {
  let where = `NOT ${t}.deleted AND EXISTS (SELECT 1 FROM ${db.t('sessions')} s WHERE s.id = ${t}.session_id AND NOT s.deleted)`;
  if (filter.sessionIds !== undefined) where += ` AND ${t}.session_id = ANY(${p.add(filter.sessionIds)}::text[])`;
  if (filter.roles !== undefined) where += ` AND ${t}.role = ANY(${p.add(filter.roles)}::text[])`;
  return where;
}

/** The transcript queries of a schema (its search: `queries.ts`). */
export function turnQueries(db: Database): Pick<StateQueries, 'turnNeighbours' | 'turns'> {
  return {
    turns: async (sessionId, { afterSeq, limit }) =>
      (
        await db.rows<rowCodec.TurnRow>(`SELECT * FROM ${db.t('turns')} WHERE session_id = $1 AND seq > $2 AND NOT deleted ORDER BY seq LIMIT $3`, [
          sessionId,
          Math.max(0, afterSeq),
          limit > 0 ? limit : null,
        ])
      ).map(rowCodec.turnFromRow),

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
