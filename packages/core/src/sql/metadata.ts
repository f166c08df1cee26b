/**
 * Metadata filters in the SQL of both backends (docs/contract.md §5): a
 * parsed filter compiled into conditions on the `memory_meta` rows of an item
 * (one per node of its metadata reached through objects), each a set
 * membership a `(path, type, value)` index answers, and the check that the
 * stored rows are those the items' metadata gives. Core's `matchesWhere` is
 * the reference; this must agree with it. What the dialects spell
 * differently is {@link SqlDialect}'s.
 */
import type { JsonObject } from '../records/json.js';
import type { WhereCondition, WhereFilter, WhereScalar } from '../records/where.js';
import { metadataLeaves, metadataValue, pathKey } from '../records/rows.js';
import { type VerifyProblem, listed } from '../verify/report.js';

/** Collects a statement's parameter values; {@link add} returns the placeholder of the value, in text order. */
export class Params {
  readonly values: unknown[] = [];

  /** `numbered`: PostgreSQL's `$1, $2, …`; otherwise SQLite's `?`, which binds in the order added. */
  constructor(private readonly numbered = true) {}

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return this.numbered ? `$${this.values.length}` : '?';
  }
}

/** What the backends' SQL spells differently in a filter. */
export interface SqlDialect {
  /** The column of `memory_meta` a scalar of this type is stored and compared in. */
  valueColumn(type: string): string;
  /** `column` equal to one of `values`, all of one scalar type. */
  anyOf(p: Params, column: string, values: readonly (string | number)[], type: string): string;
  /** `column` equal to one of `values`, a list of text of any length in one parameter. */
  inList(p: Params, column: string, values: readonly string[]): string;
  /** The condition that the row aliased `alias` is no tombstone. */
  live(alias: string): string;
  /** A table of the store as a statement names it. */
  table(name: string): string;
}

/** A scalar equal to `operand`, with the same type. */
function equalTo(d: SqlDialect, p: Params, operand: WhereScalar): string {
  const { type, value } = metadataValue(operand);
  return value === null ? `type = ${p.add(type)}` : `(type = ${p.add(type)} AND ${d.valueColumn(type)} = ${p.add(value)})`;
}

/**
 * A scalar equal to one of `operands`: per type, one look-up of the
 * `(path, type, value)` index, so that a list of one type (the usual case)
 * does not walk every row of the path.
 */
function equalToAny(d: SqlDialect, p: Params, operands: readonly WhereScalar[]): string {
  const byType = new Map<string, (string | number)[]>();
  for (const operand of operands) {
    const { type, value } = metadataValue(operand);
    const values = byType.get(type) ?? [];
    if (value !== null) values.push(value);
    byType.set(type, values);
  }
  if (byType.size === 0) return 'false';
  const parts = [...byType].map(([type, values]) =>
    values.length === 0 ? `type = ${p.add(type)}` : `(type = ${p.add(type)} AND ${d.anyOf(p, d.valueColumn(type), values, type)})`,
  );
  return `(${parts.join(' OR ')})`;
}

const COMPARISONS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** Whether a condition holds where the meta rows of its positive form are absent. */
const negated = (c: WhereCondition): boolean => c.op === '$ne' || c.op === '$nin' || (c.op === '$exists' && !c.value);

/** The meta rows satisfying the positive form of a condition. */
function rowsFor(d: SqlDialect, p: Params, condition: WhereCondition): string {
  switch (condition.op) {
    case '$eq':
    case '$ne':
      return equalTo(d, p, condition.value);
    case '$in':
    case '$nin':
      return equalToAny(d, p, condition.value);
    case '$exists':
      return 'true';
    default: {
      // Ordering never crosses types: numbers with numbers, text with text (in code-point order).
      const type = typeof condition.value === 'number' ? 'number' : 'string';
      return `(type = ${p.add(type)} AND ${d.valueColumn(type)} ${COMPARISONS[condition.op]} ${p.add(condition.value)})`;
    }
  }
}

/** The filter as SQL conditions on the memory row aliased `alias` (all must hold). */
function whereSql(d: SqlDialect, p: Params, filter: WhereFilter, alias: string): string {
  const metaTable = d.table('memory_meta');
  // An item has at most one row per path, so the positive conditions on one path are one
  // look-up of the rows meeting them all: a range like `{ $gte: 1, $lt: 5 }` reads the
  // index between its bounds, not each half-open side of it.
  const positive = new Map<string, WhereCondition[]>();
  const parts: string[] = [];
  for (const condition of filter) {
    const path = pathKey(condition.path);
    if (negated(condition)) parts.push(`${alias}.n NOT IN (SELECT item_n FROM ${metaTable} WHERE path = ${p.add(path)} AND ${rowsFor(d, p, condition)})`);
    else positive.set(path, [...(positive.get(path) ?? []), condition]);
  }
  for (const [path, conditions] of positive) {
    const at = p.add(path);
    parts.push(`${alias}.n IN (SELECT item_n FROM ${metaTable} WHERE path = ${at} AND ${conditions.map((c) => rowsFor(d, p, c)).join(' AND ')})`);
  }
  return parts.join(' AND ');
}

/**
 * The expiry, kinds left out and metadata parts of a memory filter, appended
 * to a `WHERE` on the memory row aliased `alias` (`''` when there are none).
 */
export function memoryRowFilter(
  d: SqlDialect,
  p: Params,
  filter: { where?: WhereFilter | undefined; now?: string | undefined; exceptKinds?: readonly string[] | undefined },
  alias: string,
): string {
  let sql = '';
  if (filter.exceptKinds !== undefined && filter.exceptKinds.length > 0) sql += ` AND NOT ${d.inList(p, `${alias}.kind`, filter.exceptKinds)}`;
  if (filter.now !== undefined) sql += ` AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > ${p.add(filter.now)})`;
  if (filter.where !== undefined && filter.where.length > 0) sql += ` AND ${whereSql(d, p, filter.where, alias)}`;
  return sql;
}

/** A leaf as one comparable string: item, path, type and the value with its JavaScript type, as the driver reads it. */
const leafKey = (n: number, path: string, type: string, value: unknown): string =>
  JSON.stringify([n, path, type, typeof value, value === null ? null : String(value)]);

/**
 * The stored `memory_meta` leaves (`stored`, each value as read from its
 * {@link SqlDialect.valueColumn}) against those of the live memory rows'
 * metadata (`live`): metadata filters read only the leaves, so a missing,
 * extra or changed one would make recall answer differently from the records.
 */
export function checkMetadataIndex(
  live: Iterable<{ n: number; metadata: string }>,
  stored: Iterable<{ item_n: number; path: string; type: string; value: unknown }>,
): VerifyProblem[] {
  const expected = new Set<string>();
  for (const row of live) {
    for (const leaf of metadataLeaves(JSON.parse(row.metadata) as JsonObject)) expected.add(leafKey(row.n, leaf.path, leaf.type, leaf.value));
  }
  const actual = new Set<string>();
  for (const leaf of stored) actual.add(leafKey(leaf.item_n, leaf.path, leaf.type, leaf.value));
  const missing = [...expected].filter((k) => !actual.has(k));
  const extra = [...actual].filter((k) => !expected.has(k));
  const problem = (message: string): VerifyProblem => ({ part: 'tables', object: 'memory_meta', message, repair: 'rebuild' });
  return [
    ...(missing.length ? [problem(`memory_meta lacks ${missing.length} metadata leaves of live items (${listed(missing)})`)] : []),
    ...(extra.length ? [problem(`memory_meta holds ${extra.length} leaves no live item has (${listed(extra)})`)] : []),
  ];
}
