/**
 * Verification: fold the whole `state` stream in memory, from seq 1, and
 * compare the result with what the database's tables hold, byte for byte
 * (the canonical snapshot text). The newest stored snapshot is checked
 * against the fold at its seq on the way, opened with the snapshot key's
 * codec when one is given (a sealed snapshot read without it is reported as
 * sealed but unverified, not as damaged).
 */
import { createHash } from 'node:crypto';
import type { LogEvent, Snapshot, SkippedSnapshot, SnapshotCodec } from '@agentstate/core';
import { CorruptionError, MemoryState, STATE_STREAM, canonicalJson, decodeStateEvent, encodeSnapshot, loadSnapshot, plainCodec } from '@agentstate/core';
import type { Database } from './database.js';
import type { Progress } from './progress.js';

/** The outcome of {@link verifyDatabase}. */
export interface VerifyReport {
  /**
   * True when the tables equal the fold, the newest stored snapshot (if any)
   * agrees with the log, and no newer stored snapshot is damaged (see
   * `SkippedSnapshot.damaged`; one that is only uncheckable here is reported, not failed).
   */
  ok: boolean;
  /** Events in the `state` stream. */
  events: number;
  /** The seq the tables say they hold. */
  tablesSeq: number;
  /** SHA-256 of the canonical snapshot text of the fold. */
  sha256: string;
  /** Its size in bytes. */
  bytes: number;
  /** What differs between the tables and the fold (empty when equal). */
  differences: string[];
  /**
   * The newest trustworthy stored snapshot, whether it equals the fold at its
   * seq, and the codec that opened it (`plain`: an unsealed one).
   */
  storedSnapshot: { seq: number; matches: boolean; codec: string } | null;
  /** Stored snapshots that could not be used, and why. */
  skippedSnapshots: SkippedSnapshot[];
}

const BATCH = 10_000;
const MAX_LISTED = 5;

/**
 * Captures the tables, folds `db.log` from scratch up to their seq and
 * compares the two; stored snapshots are opened with `codec`. A malformed
 * event throws `CorruptionError`.
 */
export async function verifyDatabase(db: Database, progress?: Progress, codec: SnapshotCodec = plainCodec): Promise<VerifyReport> {
  // The tables first (rows and seq in one read), then the log up to their seq:
  // another process may keep writing while this runs.
  const tables = await db.snapshot();
  progress?.setTotal(tables.seq);
  const stored = await loadSnapshot(db.log, codec, tables.seq);
  const storedText = stored.snapshot ? encodeSnapshot(stored.snapshot) : undefined;
  const state = new MemoryState();
  let storedSnapshot: VerifyReport['storedSnapshot'] = null;
  const opened = codec.id;
  if (stored.snapshot?.seq === 0) storedSnapshot = { seq: 0, matches: encodeSnapshot(state.capture()) === storedText, codec: opened };
  while (state.seq < tables.seq) {
    const batch: LogEvent[] = await db.log.read({ stream: STATE_STREAM, afterSeq: state.seq, limit: Math.min(BATCH, tables.seq - state.seq) });
    if (batch.length === 0) break;
    for (const event of batch) {
      if (event.seq !== state.seq + 1) throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${state.seq + 1}: the stream has a gap`);
      state.apply(decodeStateEvent(event), event.seq);
      if (event.seq === stored.snapshot?.seq) storedSnapshot = { seq: event.seq, matches: encodeSnapshot(state.capture()) === storedText, codec: opened };
    }
    progress?.update(state.seq);
  }
  const folded = state.capture();
  const foldedText = encodeSnapshot(folded);
  const equal = foldedText === encodeSnapshot(tables);
  const differences = equal ? [] : diffSnapshots(tables, folded);
  if (!equal && differences.length === 0) differences.push('the canonical texts differ');
  return {
    ok: equal && (storedSnapshot === null || storedSnapshot.matches) && !stored.skipped.some((s) => s.damaged),
    events: state.seq,
    tablesSeq: tables.seq,
    sha256: sha256(foldedText),
    bytes: Buffer.byteLength(foldedText),
    differences,
    storedSnapshot,
    skippedSnapshots: stored.skipped,
  };
}

/** SHA-256 of text, hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** What differs between two snapshots, collection by collection, a few keys each. */
export function diffSnapshots(tables: Snapshot, folded: Snapshot): string[] {
  const out: string[] = [];
  if (tables.seq !== folded.seq) out.push(`the tables are at seq ${tables.seq}, the log at ${folded.seq}`);
  const byId = (r: { id: string }): string => r.id;
  out.push(...compare('sessions', tables.sessions, folded.sessions, byId));
  out.push(...compare('turns', tables.turns, folded.turns, (t) => `${t.sessionId}#${t.seq}`));
  out.push(...compare('skills', tables.skills, folded.skills, byId));
  out.push(...compare('memory', tables.memory, folded.memory, byId));
  return out;
}

function compare<T>(name: string, tables: readonly T[], folded: readonly T[], key: (record: T) => string): string[] {
  const left = index(tables, key);
  const right = index(folded, key);
  const missing = [...right.keys()].filter((k) => !left.has(k));
  const extra = [...left.keys()].filter((k) => !right.has(k));
  const changed = [...right.keys()].filter((k) => left.has(k) && left.get(k) !== right.get(k));
  const out: string[] = [];
  if (missing.length) out.push(`${name}: ${missing.length} in the log but not in the tables (${listed(missing)})`);
  if (extra.length) out.push(`${name}: ${extra.length} in the tables but not in the log (${listed(extra)})`);
  if (changed.length) out.push(`${name}: ${changed.length} differ from the log (${listed(changed)})`);
  return out;
}

function index<T>(records: readonly T[], key: (record: T) => string): Map<string, string> {
  return new Map(records.map((r) => [key(r), canonicalJson(r)]));
}

function listed(keys: readonly string[]): string {
  const shown = keys.slice(0, MAX_LISTED).join(', ');
  return keys.length > MAX_LISTED ? `${shown}, …` : shown;
}
