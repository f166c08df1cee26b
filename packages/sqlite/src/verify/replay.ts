/**
 * The log against everything derived from it, read synchronously inside
 * the verification's read transaction and checked by core's
 * {@link ReplayCheck}: the whole `state` stream read back (checksums, seq
 * order, full payload validation) and replayed; the tables must equal the
 * replay at their seq, byte for byte, and every stored snapshot that opens
 * must equal the replay at its seq. Events of other streams are read back too.
 */
import type { Snapshot, SnapshotCodec, UpcasterRegistry } from '@agentstate/core';
import { CorruptionError, STATE_STREAM } from '@agentstate/core';
import type { ReplayResult } from '@agentstate/core/backend';
import { REPLAY_BATCH, ReplayCheck } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';
import type { SqliteLog } from '../log.js';
import { checkHistoryIndex } from './history.js';

export type { ReplayResult } from '@agentstate/core/backend';

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

/** Replays the log and compares; inside a read transaction. */
export function checkReplay(ctx: ReplayContext): ReplayResult {
  const { log } = ctx;
  const head = log.headNow(STATE_STREAM);
  const check = new ReplayCheck({ tables: ctx.tables, head, codec: ctx.codec, upcasters: ctx.upcasters });
  const trust = check.trust({
    identity: () => log.identityNow(),
    eventAt: (seq: number) => (seq === 0 ? undefined : log.readNow(STATE_STREAM, seq - 1, 1).find((e) => e.seq === seq)),
  });
  let upTo = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const row = ctx.conn.prepare('SELECT seq, data FROM snapshots WHERE stream = ? AND seq <= ? ORDER BY seq DESC LIMIT 1').get(STATE_STREAM, upTo) as
      | { seq: number; data: string }
      | undefined;
    if (!row) break;
    upTo = row.seq - 1;
    const part = ctx.conn.prepare('SELECT data FROM snapshots WHERE stream = ? AND seq = ?');
    check.storedSnapshot(row, { ...trust, row: (stream, seq) => (part.get(stream, seq) as { data: string } | undefined)?.data });
  }
  try {
    while (check.seq < head) {
      const batch = log.readNow(STATE_STREAM, check.seq, REPLAY_BATCH);
      if (batch.length === 0) break;
      check.apply(batch);
      ctx.onProgress?.(check.seq, head);
    }
  } catch (error) {
    check.failed(error);
  }
  const streams = ctx.conn.prepare('SELECT DISTINCT stream FROM events WHERE stream <> ?').all(STATE_STREAM) as { stream: string }[];
  for (const { stream } of streams) {
    let seq = 0;
    try {
      for (;;) {
        const batch = log.readNow(stream, seq, REPLAY_BATCH);
        if (batch.length === 0) break;
        for (const event of batch) {
          if (event.seq !== seq + 1) throw new CorruptionError(stream, event.seq, `expected seq ${seq + 1}: the stream has a gap`);
          seq = event.seq;
        }
      }
    } catch (error) {
      check.streamFailed(stream, error);
    }
  }
  const result = check.result();
  const history = check.replayedHistory();
  if (history) result.problems.push(...checkHistoryIndex(ctx.conn, history));
  return result;
}
