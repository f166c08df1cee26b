/**
 * What a backend's `verify()` reports: each problem found with the part of
 * the database it lives in and the repair that fixes it. Parts derived from
 * the log (tables, full-text and vector indexes) are repaired by a rebuild;
 * damage to the log's own rows calls for exporting the log and importing it
 * into a new database; a log that cannot be read at all, only by a backup.
 */
import type { SkippedSnapshot } from '../snapshot/restore.js';

/**
 * The parts of a database: its storage structure (a SQLite file's pages),
 * the event log, the stored snapshots, the projection tables (and their
 * indexes), the full-text indexes and the vector tables.
 */
export type VerifyPart = 'file' | 'log' | 'snapshots' | 'tables' | 'fts' | 'vectors';

/**
 * What repairs a problem, from the lightest: `rebuild` re-derives the
 * tables, full-text and vector indexes from the log in place;
 * `export-import` copies the log into a new database (`export`, then
 * `import`), leaving damaged rows behind; `restore-backup` means the log
 * itself is unreadable and only a copy made before the damage holds it.
 */
export type Repair = 'rebuild' | 'export-import' | 'restore-backup';

/** One thing found wrong. */
export interface VerifyProblem {
  /** The part of the database it lives in. */
  part: VerifyPart;
  /** The database object concerned (a table or index name), when known. */
  object?: string;
  /** What is wrong, in one line. */
  message: string;
  /** What repairs it. */
  repair: Repair;
}

/** What every backend's verification reports: the log replayed and compared with the tables and stored snapshots. */
export interface VerifyReport {
  /** True when no problem was found in any part. */
  ok: boolean;
  /** Everything found wrong, in the order the parts were checked. */
  problems: VerifyProblem[];
  /** The one repair that fixes every problem found (the heaviest needed), or null when ok. */
  repair: Repair | null;
  /** Events replayed from the `state` stream. */
  events: number;
  /** The seq the tables say they hold. */
  tablesSeq: number;
  /** SHA-256 of the canonical snapshot text of the replay (empty when the log could not be replayed). */
  sha256: string;
  /** Its size in bytes. */
  bytes: number;
  /** What differs between the tables and the replay (empty when equal). */
  differences: string[];
  /**
   * The newest stored snapshot a loader would trust, whether it equals the
   * replay at its seq, and the codec that opened it (`plain`: unsealed).
   */
  storedSnapshot: { seq: number; matches: boolean; codec: string } | null;
  /**
   * Stored snapshots a loader would skip, and why. Those marked `damaged`
   * (edited, foreign, failing their seal under the given key) are problems
   * too; those that only cannot be checked here (sealed with a key not given,
   * of an earlier snapshot format: a note, not damage) are not.
   */
  skippedSnapshots: SkippedSnapshot[];
}

const WEIGHT: Record<Repair, number> = { rebuild: 1, 'export-import': 2, 'restore-backup': 3 };

/** The heaviest repair among `problems`, which also fixes the lighter ones; null when there are none. */
export function overallRepair(problems: readonly VerifyProblem[]): Repair | null {
  let chosen: Repair | null = null;
  for (const p of problems) if (chosen === null || WEIGHT[p.repair] > WEIGHT[chosen]) chosen = p.repair;
  return chosen;
}

/** The steps of a repair, for people. */
export const REPAIR_ADVICE: Record<Repair, string> = {
  rebuild: 'run `agentstate rebuild`: the damaged parts are derived from the log, which is intact (if the rebuild fails, export then import)',
  'export-import':
    'run `agentstate export > state.jsonl`, then `agentstate import --db <new file> state.jsonl`, check the new file with `agentstate verify` and use it instead of the damaged one',
  'restore-backup': 'the event log itself is unreadable: restore the file from a backup (export whatever still exports first, to keep a copy)',
};

/** Keys named per problem. */
const MAX_LISTED = 5;

/** The first few of `keys` for a problem's message, with `…` when there are more. */
export function listed(keys: readonly (string | number)[]): string {
  const shown = keys.slice(0, MAX_LISTED).join(', ');
  return keys.length > MAX_LISTED ? `${shown}, …` : shown;
}
