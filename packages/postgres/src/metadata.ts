/**
 * Core's metadata filters (docs/contract.md §5) in PostgreSQL's spelling:
 * strings are stored and compared in a `text` column (collation "C"),
 * numbers and booleans (0/1) in a `float8` column, and a list is one
 * `= ANY` look-up of the `(path, type, value)` index.
 */
import type { SqlDialect } from '@agentstate/core/backend';

/** The column a scalar of this type is stored and compared in. */
export const valueColumn = (type: string): 'text_value' | 'number_value' => (type === 'string' ? 'text_value' : 'number_value');

/** How PostgreSQL spells a metadata filter. */
export const POSTGRES_METADATA: SqlDialect = {
  valueColumn,
  anyOf: (p, column, values, type) => `${column} = ANY(${p.add(values)}::${type === 'string' ? 'text' : 'float8'}[])`,
};
