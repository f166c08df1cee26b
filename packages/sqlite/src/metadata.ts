/**
 * Metadata filters in SQL (docs/contract.md §5): the `memory_meta` rows of an
 * item (one per node of its metadata reached through objects) and the
 * compilation of a parsed filter into conditions on them, each a set
 * membership the `(path, type, value)` index answers. Core's
 * `matchesWhere` is the reference; this must agree with it.
 */
import type { WhereCondition, WhereFilter, WhereScalar } from '@agentstate/core';
import { rowCodec } from '@agentstate/core/backend';

/** SQL condition and parameters. */
interface Sql {
  sql: string;
  params: unknown[];
}

/** `type = ? AND value = ?` (or `IS NULL` for null): a scalar equal to `operand` with the same type. */
function equalTo(operand: WhereScalar): Sql {
  const { type, value } = rowCodec.metadataValue(operand);
  return value === null ? { sql: 'type = ?', params: [type] } : { sql: '(type = ? AND value = ?)', params: [type, value] };
}

/**
 * A scalar equal to one of `operands`: per type, `type = ? AND value IN (…)`,
 * so that a list of one type (the usual case) is one look-up of the
 * `(path, type, value)` index rather than a walk of every row of the path.
 */
function equalToAny(operands: readonly WhereScalar[]): Sql {
  const byType = new Map<string, (string | number)[]>();
  for (const operand of operands) {
    const { type, value } = rowCodec.metadataValue(operand);
    const values = byType.get(type) ?? [];
    if (value !== null) values.push(value);
    byType.set(type, values);
  }
  if (byType.size === 0) return { sql: '0', params: [] };
  const parts = [...byType].map(
    ([type, values]): Sql =>
      values.length === 0
        ? { sql: 'type = ?', params: [type] }
        : { sql: `(type = ? AND value IN (${values.map(() => '?').join(', ')}))`, params: [type, ...values] },
  );
  return { sql: `(${parts.map((p) => p.sql).join(' OR ')})`, params: parts.flatMap((p) => p.params) };
}

const COMPARISONS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** The meta rows satisfying the positive form of a condition, and whether the condition negates it. */
function rowsFor(condition: WhereCondition): { rows: Sql; negated: boolean } {
  switch (condition.op) {
    case '$eq':
    case '$ne':
      return { rows: equalTo(condition.value), negated: condition.op === '$ne' };
    case '$in':
    case '$nin':
      return { rows: equalToAny(condition.value), negated: condition.op === '$nin' };
    case '$exists':
      return { rows: { sql: '1', params: [] }, negated: !condition.value };
    default: {
      // Ordering never crosses types: numbers with numbers, text with text (BINARY: code-point order).
      const type = typeof condition.value === 'number' ? 'number' : 'string';
      return { rows: { sql: `(type = ? AND value ${COMPARISONS[condition.op]} ?)`, params: [type, condition.value] }, negated: false };
    }
  }
}

/** The filter as SQL conditions on the memory row aliased `alias` (all must hold). */
export function whereSql(filter: WhereFilter, alias: string): Sql {
  // An item has at most one row per path, so the positive conditions on one path are one
  // look-up of the rows meeting them all: a range like `{ $gte: 1, $lt: 5 }` reads the
  // index between its bounds, not each half-open side of it.
  const positive = new Map<string, Sql[]>();
  const parts: Sql[] = [];
  for (const condition of filter) {
    const { rows, negated } = rowsFor(condition);
    const path = rowCodec.pathKey(condition.path);
    if (negated) parts.push({ sql: `${alias}.n NOT IN (SELECT item_n FROM memory_meta WHERE path = ? AND ${rows.sql})`, params: [path, ...rows.params] });
    else positive.set(path, [...(positive.get(path) ?? []), rows]);
  }
  for (const [path, rows] of positive) {
    parts.push({
      sql: `${alias}.n IN (SELECT item_n FROM memory_meta WHERE path = ? AND ${rows.map((r) => r.sql).join(' AND ')})`,
      params: [path, ...rows.flatMap((r) => r.params)],
    });
  }
  return { sql: parts.map((p) => p.sql).join(' AND '), params: parts.flatMap((p) => p.params) };
}

/**
 * The expiry and metadata parts of a memory filter as SQL appended to a
 * `WHERE` on the memory row aliased `alias` (`''` when there are none).
 */
export function memoryRowFilter(filter: { where?: WhereFilter | undefined; now?: string | undefined }, alias: string): Sql {
  let sql = '';
  const params: unknown[] = [];
  if (filter.now !== undefined) {
    sql += ` AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > ?)`;
    params.push(filter.now);
  }
  if (filter.where !== undefined && filter.where.length > 0) {
    const where = whereSql(filter.where, alias);
    sql += ` AND ${where.sql}`;
    params.push(...where.params);
  }
  return { sql, params };
}
