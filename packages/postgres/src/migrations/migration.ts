/** One versioned schema change. */
import { createHash } from 'node:crypto';

/** A migration: its SQL names every table through the `{schema}` placeholder. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The checksum recorded when a migration is applied (over its SQL with the placeholder, so it does not depend on the schema's name). */
export function migrationChecksum(migration: Migration): string {
  return createHash('sha256').update(`${migration.version}\u0000${migration.name}\u0000${migration.sql}`).digest('hex');
}

/** The SQL of a migration for one schema (already quoted). */
export function migrationSql(migration: Migration, quotedSchema: string): string {
  return migration.sql.replaceAll('{schema}', quotedSchema);
}
