/**
 * Verification as the command shows it. The checks themselves belong to the
 * backend (`provider.verify()` of SQLite or PostgreSQL); here they get a
 * progress bar, a report for people, and the repair advice when something
 * is damaged.
 */
import { REPAIR_ADVICE } from '@agentstate/core';
import { createHash } from 'node:crypto';
import type { SkippedSnapshot, VerifyReport as ReplayVerifyReport } from '@agentstate/core';
import type { VerifyReport as SqliteVerifyReport } from '@agentstate/sqlite';
import type { Database } from './database.js';
import { DamagedDatabaseError } from './errors.js';
import { bytes, count, print } from './output.js';
import { startProgress } from './progress.js';
import { SNAPSHOT_KEY_ENV } from '@agentstate/open';

/** A report of either backend: SQLite's adds its page check and the vectors still to derive. */
export type VerifyReport = ReplayVerifyReport & Partial<Omit<SqliteVerifyReport, keyof ReplayVerifyReport>>;

/** SHA-256 of text, hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Why a snapshot was skipped, with the remedy when only its key was missing. */
export function skippedLine(s: SkippedSnapshot): string {
  const hint = s.sealedWith ? ` (give its key with --snapshot-key or $${SNAPSHOT_KEY_ENV})` : '';
  return `snapshot at seq ${count(s.seq)} skipped${s.damaged ? ' as DAMAGED' : ''}: ${s.reason}${hint}`;
}

/**
 * Records without a vector yet, said as what they are: the normal state after
 * writes (vectors are derived lazily, not at write time), not damage, and
 * when it resolves.
 */
function pendingLine(n: number, noun: string, embedder: string, derivedBy: string): string {
  return `${count(n)} ${n === 1 ? noun : `${noun}s`} not embedded yet by ${embedder}: normal after writes, not damage; ${derivedBy} derives their vectors`;
}

/** What derives the vectors still missing: a semantic or hybrid search on a database it may write (a read-only one keeps them in memory). */
const MEMORY_VECTORS_BY = 'the next semantic or hybrid recall through the MCP server or the library';
const TURN_VECTORS_BY = 'the next semantic or hybrid `agentstate sessions search` (or one through the MCP server or the library)';

/** Runs verification with a progress bar on a terminal. */
export async function runVerify(db: Database, options: { json: boolean; quick?: boolean }): Promise<VerifyReport> {
  const progress = startProgress('verifying', 0, options.json);
  try {
    return await db.verify({
      quick: options.quick,
      onProgress: (done, total) => {
        progress.setTotal(total);
        progress.update(done);
      },
    });
  } finally {
    progress.stop();
  }
}

/** Prints a verification report for people. */
export function printVerifyReport(report: VerifyReport): void {
  if (report.differences.length === 0 && report.sha256 !== '') {
    print(`${report.ok ? 'ok' : 'tables ok, but the file is DAMAGED (below)'}: the tables equal a replay of all ${count(report.events)} events, byte for byte`);
  } else if (report.differences.length > 0) {
    print(`MISMATCH: the tables differ from a replay of the ${count(report.events)} events`);
    for (const d of report.differences) print(`  ${d}`);
  }
  if (report.sha256 !== '') print(`  snapshot sha256 ${report.sha256} (${bytes(report.bytes)})`);
  const stored = report.storedSnapshot;
  const sealed = (codec: string): string => (codec === 'plain' ? 'unsealed' : `sealed with ${codec}, verified`);
  if (stored) print(`  stored snapshot at seq ${count(stored.seq)} (${sealed(stored.codec)}): ${stored.matches ? 'matches the log' : 'DIFFERS from the log'}`);
  for (const s of report.skippedSnapshots) print(`  stored ${skippedLine(s)}`);
  for (const [embedder, n] of Object.entries(report.pendingVectors ?? {})) if (n > 0) print(`  ${pendingLine(n, 'memory item', embedder, MEMORY_VECTORS_BY)}`);
  for (const [embedder, n] of Object.entries(report.pendingTurnVectors ?? {})) if (n > 0) print(`  ${pendingLine(n, 'turn', embedder, TURN_VECTORS_BY)}`);
  const others = report.problems.filter((p) => p.part !== 'tables' || !report.differences.includes(p.message));
  if (report.ok) {
    if (report.integrityCheck === undefined) print('  metadata and full-text indexes: ok');
    else print(`  SQLite ${report.integrityCheck === 'full' ? 'integrity' : 'quick'} check, full-text and vector indexes: ok`);
    return;
  }
  for (const p of others) print(`DAMAGED ${p.part}: ${p.message}`);
  if (report.repair) print(`repair: ${REPAIR_ADVICE[report.repair]}`);
}

/** Throws the exit-2 error of a report that is not ok: the first problem and the repair, in one line. */
export function assertVerified(report: VerifyReport): void {
  if (report.ok) return;
  const first = report.problems[0]?.message ?? 'unknown damage';
  const repair = report.repair ? ` (repair: ${REPAIR_ADVICE[report.repair]})` : '';
  throw new DamagedDatabaseError(`verification failed: ${first}${repair}`);
}
