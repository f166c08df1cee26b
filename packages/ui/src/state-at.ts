/**
 * The state as of an earlier point of the log, for the timeline's slider:
 * the newest trustworthy snapshot at or below `seq`, then the events up to
 * it, folded by core's `foldLog` over a view of the log that ends at `seq`.
 * Kept in this one file so that it gives way to the provider's own time
 * travel (`provider.at({ seq })`) once that exists.
 */
import type { Log, LogEvent, ReadQuery, Snapshot, SnapshotCodec, StoredSnapshot } from '@agentstate/core';
import { ReadOnlyViewError } from '@agentstate/core';
import { foldLog } from '@agentstate/core/backend';

/** Live and deleted records of one kind. */
export interface RecordCounts {
  live: number;
  deleted: number;
}

/** How much the state held as of a seq. */
export interface StateCounts {
  /** The seq the counts are as of (the head when asked beyond it). */
  seq: number;
  sessions: RecordCounts;
  /** Live turns of live sessions. */
  turns: number;
  skills: RecordCounts;
  memory: RecordCounts;
  checkpoints: number;
}

/** `log` as it was when its `state` stream ended at `seq`: later events and snapshots are out of sight. */
function logUpTo(log: Log, seq: number): Log {
  return {
    identity: () => log.identity(),
    append: () => Promise.reject(new ReadOnlyViewError('a past view of the log is read-only')),
    head: async (stream) => Math.min(await log.head(stream), seq),
    read: async (query: ReadQuery): Promise<LogEvent[]> => {
      const after = query.afterSeq ?? 0;
      const room = seq - after;
      if (room <= 0) return [];
      const limit = query.limit ? Math.min(query.limit, room) : room;
      return log.read({ ...query, limit });
    },
    saveSnapshot: () => Promise.reject(new ReadOnlyViewError('a past view of the log is read-only')),
    latestSnapshot: (stream, options): Promise<StoredSnapshot | undefined> => log.latestSnapshot(stream, { upToSeq: Math.min(options?.upToSeq ?? seq, seq) }),
  };
}

function counts(records: ReadonlyArray<{ deleted: boolean }>): RecordCounts {
  let deleted = 0;
  for (const r of records) if (r.deleted) deleted += 1;
  return { live: records.length - deleted, deleted };
}

/** Counts the records of a captured state. */
export function countSnapshot(snapshot: Snapshot): StateCounts {
  const liveSessions = new Set(snapshot.sessions.filter((s) => !s.deleted).map((s) => s.id));
  return {
    seq: snapshot.seq,
    sessions: counts(snapshot.sessions),
    turns: snapshot.turns.filter((t) => !t.deleted && liveSessions.has(t.sessionId)).length,
    skills: counts(snapshot.skills),
    memory: counts(snapshot.memory),
    checkpoints: snapshot.checkpoints.length,
  };
}

/** The whole state as of `seq` (a seq beyond the head means the head). */
export async function stateAt(log: Log, seq: number, codec?: SnapshotCodec): Promise<Snapshot> {
  const { state } = await foldLog(logUpTo(log, seq), { snapshotCodec: codec });
  return state.capture();
}
