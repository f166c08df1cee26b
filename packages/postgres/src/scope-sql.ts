/**
 * Filters as SQL: a {@link ScopeFilter} over a `scope_key` column (the canonical JSON
 * of a scope's labels, collation "C"): exact scopes are one `= ANY`, a
 * scope's descendants the key range {@link descendantKeyRange} gives, so
 * both read an index led by `scope_key`.
 */
import type { MemoryFilter, Params, ScopeFilter, TurnFilter } from '@agentstate/core/backend';
import type { Database } from './database.js';
import { descendantKeyRange, memoryRowFilter, scopeKey } from '@agentstate/core/backend';
import { POSTGRES_METADATA } from './metadata.js';

/** The condition, or `undefined` when the filter spans every scope. */
export function scopeCondition(p: Params, filter: ScopeFilter, column: string): string | undefined {
  if (filter.scopes === undefined) return undefined;
  const exact = `${column} = ANY(${p.add(filter.scopes.map(scopeKey))}::text[])`;
  if (filter.descendantsOf === undefined) return exact;
  const { from, to } = descendantKeyRange(filter.descendantsOf);
  return `(${exact} OR (${column} >= ${p.add(from)} AND ${column} < ${p.add(to)}))`;
}

/** The condition of live turns (aliased `t`) of live sessions passing `filter`. */
export function turnWhere(db: Database, p: Params, filter: TurnFilter, t = 't'): string {
  let where = `NOT ${t}.deleted AND EXISTS (SELECT 1 FROM ${db.t('sessions')} s WHERE s.id = ${t}.session_id AND NOT s.deleted)`;
  if (filter.sessionIds !== undefined) where += ` AND ${t}.session_id = ANY(${p.add(filter.sessionIds)}::text[])`;
  if (filter.roles !== undefined) where += ` AND ${t}.role = ANY(${p.add(filter.roles)}::text[])`;
  return where;
}

/** The conditions on the live rows of `skills` or `memory` (aliased `r`) a lexical or vector search of them keeps. */
export function recordWhere(db: Database, p: Params, table: 'skills' | 'memory', query: ScopeFilter & MemoryFilter): string {
  let rest = 'NOT r.deleted';
  const scoped = scopeCondition(p, query, 'r.scope_key');
  if (scoped) rest += ` AND ${scoped}`;
  if (table === 'memory') {
    if (query.kinds !== undefined) rest += ` AND r.kind = ANY(${p.add(query.kinds)}::text[])`;
    rest += memoryRowFilter(POSTGRES_METADATA, p, query, 'r', db.t('memory_meta'));
  }
  return rest;
}
