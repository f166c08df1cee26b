/**
 * Metadata filters in SQL (docs/contract.md §5): the `memory_meta` rows of an
 * item (one per node of its metadata reached through objects) and the
 * compilation of a parsed filter into conditions on them, each a set
 * membership a `(path, type, value)` index answers. Strings are stored and
 * compared in a `text` column (collation "C"), numbers and booleans (0/1) in a
 * `float8` column. Core's
 * `matchesWhere` is the reference; this must agree with it.
 */
import type { WhereCondition, WhereFilter, WhereScalar } from '@agentstate/core';
import { rowCodec } from '@agentstate/core/backend';
import type { Params } from './params.js';

/** The column a scalar of this type is stored and compared in. */
export const valueColumn = (type: string): 'text_value' | 'number_value' => (type === 'string' ? 'text_value' : 'number_value');

/** A scalar equal to `operand`, with the same type. */
function equalTo(p: Params, operand: WhereScalar): string {
  const { type, value } = rowCodec.metadataValue(operand);
  return value === null ? `type = ${p.add(type)}` : `(type = ${p.add(type)} AND ${valueColumn(type)} = ${p.add(value)})`;
}

/** A scalar equal to one of `operands`: per type, one `= ANY` look-up of the `(path, type, value)` index. */
function equalToAny(p: Params, operands: readonly WhereScalar[]): string {
  const byType = new Map<string, (string | number)[]>();
  for (const operand of operands) {
    const { type, value } = rowCodec.metadataValue(operand);
    const values = byType.get(type) ?? [];
    if (value !== null) values.push(value);
    byType.set(type, values);
  }
  if (byType.size === 0) return 'false';
  const parts = [...byType].map(([type, values]) =>
    values.length === 0
      ? `type = ${p.add(type)}`
      : `(type = ${p.add(type)} AND ${valueColumn(type)} = ANY(${p.add(values)}::${type === 'string' ? 'text' : 'float8'}[]))`,
  );
  return `(${parts.join(' OR ')})`;
}

const COMPARISONS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** The meta rows satisfying the positive form of a condition, and whether the condition negates it. */
function rowsFor(p: Params, condition: WhereCondition): { rows: string; negated: boolean } {
  switch (condition.op) {
    case '$eq':
    case '$ne':
      return { rows: equalTo(p, condition.value), negated: condition.op === '$ne' };
    case '$in':
    case '$nin':
      return { rows: equalToAny(p, condition.value), negated: condition.op === '$nin' };
    case '$exists':
      return { rows: 'true', negated: !condition.value };
    default: {
      // Ordering never crosses types: numbers with numbers, text with text (collation "C": code-point order).
      const type = typeof condition.value === 'number' ? 'number' : 'string';
      return { rows: `(type = ${p.add(type)} AND ${valueColumn(type)} ${COMPARISONS[condition.op]} ${p.add(condition.value)})`, negated: false };
    }
  }
}

/** The filter as SQL conditions on the memory row aliased `alias` (all must hold). */
export function whereSql(p: Params, filter: WhereFilter, alias: string, metaTable: string): string {
  const positive = new Map<string, WhereCondition[]>();
  const parts: string[] = [];
  for (const condition of filter) {
    const path = rowCodec.pathKey(condition.path);
    if (rowsForNegated(condition)) {
      const { rows } = rowsFor(p, condition);
      parts.push(`${alias}.n NOT IN (SELECT item_n FROM ${metaTable} WHERE path = ${p.add(path)} AND ${rows})`);
    } else positive.set(path, [...(positive.get(path) ?? []), condition]);
  }
  // An item has one row per path, so the positive conditions on one path are one look-up of the rows meeting them all.
  for (const [path, conditions] of positive) {
    const pathParam = p.add(path);
    const rows = conditions.map((c) => rowsFor(p, c).rows);
    parts.push(`${alias}.n IN (SELECT item_n FROM ${metaTable} WHERE path = ${pathParam} AND ${rows.join(' AND ')})`);
  }
  return parts.join(' AND ');
}

function rowsForNegated(condition: WhereCondition): boolean {
  return condition.op === '$ne' || condition.op === '$nin' || (condition.op === '$exists' && !condition.value);
}

/** The expiry and metadata parts of a memory filter, appended to a `WHERE` on the memory row aliased `alias` (`''` when none). */
export function memoryRowFilter(p: Params, filter: { where?: WhereFilter | undefined; now?: string | undefined }, alias: string, metaTable: string): string {
  let sql = '';
  if (filter.now !== undefined) sql += ` AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > ${p.add(filter.now)})`;
  if (filter.where !== undefined && filter.where.length > 0) sql += ` AND ${whereSql(p, filter.where, alias, metaTable)}`;
  return sql;
}
