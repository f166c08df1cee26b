/**
 * The log against everything derived from it: the whole `state` stream is
 * read back (checksums, seq order, full payload validation) and replayed in
 * memory; the tables must equal the replay at their seq, byte for byte (the
 * canonical snapshot text), and every stored snapshot that opens must equal
 * the replay at its seq. Events of other streams are read back too.
 */
import { createHash } from 'node:crypto';
import type { Snapshot, SkippedSnapshot, SnapshotCodec, UpcasterRegistry } from '@agentstate/core';
import { CorruptionError, decodeStateEvent, encodeSnapshot, plainCodec, STATE_STREAM } from '@agentstate/core';
import { canonicalJson, InMemoryState, skippedSnapshot, trustStoredSnapshot } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';
import type { SqliteLog } from '../log.js';
import { describe } from './integrity.js';
import { checkHistoryIndex } from './history.js';
import type { VerifyProblem, VerifyReport } from './report.js';

const BATCH = 5_000;
const MAX_LISTED = 5;

/** What the replay needs. */
export interface ReplayContext {
  conn: Connection;
  log: SqliteLog;
  /** The tables, captured in the same read transaction. */
  tables: Snapshot;
  codec?: SnapshotCodec;
  upcasters?: UpcasterRegistry;
  onProgress?: (done: number, total: number) => void;
}

/** The replay's part of the report. */
export type ReplayResult = Pick<VerifyReport, 'events' | 'tablesSeq' | 'sha256' | 'bytes' | 'differences' | 'storedSnapshot' | 'skippedSnapshots'> & {
  problems: VerifyProblem[];
};

/** SHA-256 of text, hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Replays the log and compares; inside a read transaction. */
export function checkReplay(ctx: ReplayContext): ReplayResult {
  const { log, tables } = ctx;
  const problems: VerifyProblem[] = [];
  const head = log.headNow(STATE_STREAM);
  const { stored, skipped } = storedSnapshots(ctx, head);
  const state = new InMemoryState();
  const results = new Map<number, boolean>();
  const check = (): void => {
    const digest = stored.get(state.seq);
    if (digest !== undefined) results.set(state.seq, sha256(encodeSnapshot(state.capture())) === digest);
  };
  let folded: Snapshot | undefined = tables.seq === 0 ? state.capture() : undefined;
  let readable = true;
  check();
  try {
    while (state.seq < head) {
      const batch = log.readNow(STATE_STREAM, state.seq, BATCH);
      if (batch.length === 0) break;
      for (const event of batch) {
        if (event.seq !== state.seq + 1) throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${state.seq + 1}: the stream has a gap`);
        state.apply(decodeStateEvent(event, { upcasters: ctx.upcasters }), event.seq);
        check();
        if (event.seq === tables.seq) folded = state.capture();
      }
      ctx.onProgress?.(state.seq, head);
    }
  } catch (error) {
    readable = false;
    problems.push({ part: 'log', object: 'events', message: `the log cannot be replayed: ${describe(error)}`, repair: 'restore-backup' });
  }
  problems.push(...otherStreams(ctx.conn, log));
  if (readable && tables.seq === state.seq) problems.push(...checkHistoryIndex(ctx.conn, state));
  const differences: string[] = [];
  if (readable && tables.seq > head) differences.push(`the tables are at seq ${tables.seq}, the log ends at ${head}`);
  else if (folded && encodeSnapshot(folded) !== encodeSnapshot(tables)) {
    differences.push(...diffSnapshots(tables, folded));
    if (differences.length === 0) differences.push('the canonical texts differ');
  }
  for (const d of differences) problems.push({ part: 'tables', message: d, repair: 'rebuild' });
  for (const [seq, matches] of results) {
    if (!matches)
      problems.push({ part: 'snapshots', object: 'snapshots', message: `the stored snapshot at seq ${seq} differs from the log`, repair: 'export-import' });
  }
  for (const s of skipped) {
    if (s.damaged)
      problems.push({
        part: 'snapshots',
        object: 'snapshots',
        message: `the stored snapshot at seq ${s.seq} is damaged: ${s.reason}`,
        repair: 'export-import',
      });
  }
  const newest = [...results.keys()].sort((a, b) => b - a)[0];
  const text = folded ? encodeSnapshot(folded) : '';
  return {
    problems,
    events: state.seq,
    tablesSeq: tables.seq,
    sha256: folded ? sha256(text) : '',
    bytes: Buffer.byteLength(text),
    differences,
    storedSnapshot: newest === undefined ? null : { seq: newest, matches: results.get(newest)!, codec: (ctx.codec ?? plainCodec).id },
    skippedSnapshots: skipped,
  };
}

/**
 * The digests of the stored `state` snapshots that a loader would trust
 * (opened with the codec, bound to this log, matching their content digest),
 * by seq; the others, skipped as a rebuild skips them.
 */
function storedSnapshots(ctx: ReplayContext, head: number): { stored: Map<number, string>; skipped: SkippedSnapshot[] } {
  const stored = new Map<number, string>();
  const skipped: SkippedSnapshot[] = [];
  const trust = {
    codec: ctx.codec ?? plainCodec,
    head,
    identity: () => ctx.log.identityNow(),
    eventAt: (seq: number) => (seq === 0 ? undefined : ctx.log.readNow(STATE_STREAM, seq - 1, 1).find((e) => e.seq === seq)),
  };
  let upTo = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const row = ctx.conn.prepare('SELECT seq, data FROM snapshots WHERE stream = ? AND seq <= ? ORDER BY seq DESC LIMIT 1').get(STATE_STREAM, upTo) as
      | { seq: number; data: string }
      | undefined;
    if (!row) break;
    upTo = row.seq - 1;
    try {
      stored.set(row.seq, sha256(encodeSnapshot(trustStoredSnapshot(row, trust))));
    } catch (error) {
      skipped.push(skippedSnapshot(row.seq, error));
    }
  }
  return { stored, skipped };
}

/** Reads back every event of the other streams: checksums and seq order. */
function otherStreams(conn: Connection, log: SqliteLog): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  const streams = conn.prepare('SELECT DISTINCT stream FROM events WHERE stream <> ?').all(STATE_STREAM) as { stream: string }[];
  for (const { stream } of streams) {
    let seq = 0;
    try {
      for (;;) {
        const batch = log.readNow(stream, seq, BATCH);
        if (batch.length === 0) break;
        for (const event of batch) {
          if (event.seq !== seq + 1) throw new CorruptionError(stream, event.seq, `expected seq ${seq + 1}: the stream has a gap`);
          seq = event.seq;
        }
      }
    } catch (error) {
      problems.push({ part: 'log', object: 'events', message: `stream ${stream} cannot be read back: ${describe(error)}`, repair: 'restore-backup' });
    }
  }
  return problems;
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
  out.push(...compare('operations', tables.operations, folded.operations, byId));
  const checkpointKey = (c: { threadId: string; namespace: string; checkpointId: string }): string => JSON.stringify([c.threadId, c.namespace, c.checkpointId]);
  out.push(...compare('checkpoints', tables.checkpoints, folded.checkpoints, checkpointKey));
  out.push(...compare('checkpoint writes', tables.checkpointWrites, folded.checkpointWrites, (w) => `${checkpointKey(w)}#${w.taskId}#${w.idx}`));
  return out;
}

function compare<T>(name: string, tables: readonly T[], folded: readonly T[], key: (record: T) => string): string[] {
  const left = new Map(tables.map((r) => [key(r), canonicalJson(r)]));
  const right = new Map(folded.map((r) => [key(r), canonicalJson(r)]));
  const missing = [...right.keys()].filter((k) => !left.has(k));
  const extra = [...left.keys()].filter((k) => !right.has(k));
  const changed = [...right.keys()].filter((k) => left.has(k) && left.get(k) !== right.get(k));
  const out: string[] = [];
  if (missing.length) out.push(`${name}: ${missing.length} in the log but not in the tables (${listed(missing)})`);
  if (extra.length) out.push(`${name}: ${extra.length} in the tables but not in the log (${listed(extra)})`);
  if (changed.length) out.push(`${name}: ${changed.length} differ from the log (${listed(changed)})`);
  return out;
}

function listed(keys: readonly string[]): string {
  const shown = keys.slice(0, MAX_LISTED).join(', ');
  return keys.length > MAX_LISTED ? `${shown}, …` : shown;
}
