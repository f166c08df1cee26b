/**
 * Version 3: a stored snapshot's data as bytes (its UTF-8). The log takes
 * any string as snapshot data, and a `text` column refuses NUL, so a
 * snapshot holding one could not be saved; `bytea` holds every string.
 */
import type { Migration } from './migration.js';

export const migration003: Migration = {
  version: 3,
  name: 'snapshot-bytes',
  sql: `ALTER TABLE {schema}.snapshots ALTER COLUMN data TYPE bytea USING convert_to(data, 'UTF8');`,
};
