/**
 * Core's filters (docs/contract.md §5) in PostgreSQL's spelling: a list is
 * one `= ANY` of an array parameter; metadata strings are stored and
 * compared in a `text` column (collation "C"), numbers and booleans (0/1) in
 * a `float8` column, and a list is one `= ANY` look-up of the
 * `(path, type, value)` index.
 */
import type { SqlDialect } from '@agentstate/core/backend';
import type { Database } from './database.js';

/** The column a scalar of this type is stored and compared in. */
export const valueColumn = (type: string): 'text_value' | 'number_value' => (type === 'string' ? 'text_value' : 'number_value');

/** How PostgreSQL spells a filter over the tables of `db`'s schema. */
export const postgresDialect = (db: Database): SqlDialect => ({
  valueColumn,
  anyOf: (p, column, values, type) => `${column} = ANY(${p.add(values)}::${type === 'string' ? 'text' : 'float8'}[])`,
  inList: (p, column, values) => `${column} = ANY(${p.add(values)}::text[])`,
  live: (alias) => `NOT ${alias}.deleted`,
  table: (name) => db.t(name),
});
