/**
 * The projection's own bookkeeping, which no replay compares: the largest
 * HLC it records (the clock of every later write starts past it, so one
 * that is too small lets new writes sort before old ones) and the flag that
 * says memory rows were inserted in recall order (when it lies, recent-first
 * recall returns the wrong items).
 */
import type { Hlc, VerifyProblem } from '@agentstate/core';
import { compareHlc } from '@agentstate/core';
import type { Connection } from '../connection.js';

const MAX_HLC = `SELECT hlc_wall AS wall, hlc_counter AS counter FROM (
  SELECT hlc_wall, hlc_counter FROM sessions UNION ALL SELECT hlc_wall, hlc_counter FROM turns
  UNION ALL SELECT hlc_wall, hlc_counter FROM skills UNION ALL SELECT hlc_wall, hlc_counter FROM memory)
  ORDER BY hlc_wall DESC, hlc_counter DESC LIMIT 1`;

const OUT_OF_ORDER = `SELECT count(*) AS n FROM (
  SELECT created_at, id, lag(created_at) OVER w AS pc, lag(id) OVER w AS pi FROM memory WINDOW w AS (ORDER BY n))
  WHERE pc > created_at OR (pc = created_at AND pi > id)`;

/** Checks the bookkeeping rows against the tables; inside a read transaction. */
export function checkBookkeeping(conn: Connection): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  const state = conn.db.prepare('SELECT hlc_wall AS wall, hlc_counter AS counter FROM projection_state WHERE id = 1').get() as Hlc | undefined;
  const newest = conn.db.prepare(MAX_HLC).get() as Hlc | undefined;
  if (!state) problems.push({ part: 'tables', object: 'projection_state', message: 'projection_state has no row', repair: 'rebuild' });
  else if (newest && compareHlc(state, newest) < 0) {
    problems.push({
      part: 'tables',
      object: 'projection_state',
      message: 'projection_state records a largest HLC below that of a stored record',
      repair: 'rebuild',
    });
  }
  const order = conn.db.prepare('SELECT in_order FROM memory_order WHERE id = 1').get() as { in_order: number } | undefined;
  if (!order) problems.push({ part: 'tables', object: 'memory_order', message: 'memory_order has no row', repair: 'rebuild' });
  else if (order.in_order === 1 && (conn.db.prepare(OUT_OF_ORDER).get() as { n: number }).n > 0) {
    problems.push({
      part: 'tables',
      object: 'memory_order',
      message: 'memory_order says memory rows are in recall order, and they are not',
      repair: 'rebuild',
    });
  }
  return problems;
}
