/** The shape of one schema migration. */
import { createHash } from 'node:crypto';
import type { Connection } from '../connection.js';

/** One forward-only step of the schema, applied in its own transaction. */
export interface Migration {
  /** 1, 2, 3…: applied in this order, each exactly once. */
  version: number;
  /** A short name, recorded beside the version. */
  name: string;
  /** The statements. Never edit a released migration: its checksum is recorded. */
  sql: string;
  /**
   * Runs after the statements, in the same transaction, for what SQL cannot
   * compute (text folded by core). Not in the checksum: keep it to deriving
   * rows the statements' tables need.
   */
  after?: (conn: Connection) => void;
}

/** SHA-256 of a migration's statements, recorded when it is applied. */
export function migrationChecksum(migration: Migration): string {
  return createHash('sha256').update(migration.sql, 'utf8').digest('hex');
}
