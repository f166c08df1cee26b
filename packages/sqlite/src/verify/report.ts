/**
 * What SQLite's `verify()` reports: core's report of the log replayed
 * against the tables and stored snapshots (problems, parts, repairs), with
 * what only a SQLite file has: the page check that ran and the vectors
 * still to derive.
 */
import type { VerifyReport as ReplayVerifyReport } from '@agentstate/core';

export type { Repair, VerifyPart, VerifyProblem } from '@agentstate/core';
export { REPAIR_ADVICE } from '@agentstate/core';
export { overallRepair } from '@agentstate/core/backend';

/** Options of `verify()`. */
export interface VerifyOptions {
  /**
   * Use SQLite's `quick_check` instead of the full `integrity_check`: much
   * faster on large files, but it does not check that every index agrees
   * with its table. Default: the full check.
   */
  quick?: boolean;
  /** Called while the log is replayed, with the events done and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** The outcome of `verify()`. */
export interface VerifyReport extends ReplayVerifyReport {
  /** Which SQLite check ran over the pages. */
  integrityCheck: 'full' | 'quick';
  /** Live memory items still waiting for a vector, per embedder id (derived lazily: not damage). */
  pendingVectors: Record<string, number>;
  /** Live turns of live sessions still waiting for a vector, per embedder id (derived lazily: not damage). */
  pendingTurnVectors: Record<string, number>;
}
