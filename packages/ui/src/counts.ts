/**
 * How much a captured state holds, for the timeline's time travel: live
 * and deleted records of each kind. The state itself comes from the
 * provider's own time travel (`provider.at`).
 */
import type { Snapshot } from '@agentstate/core';

/** Live and deleted records of one kind. */
export interface RecordCounts {
  live: number;
  deleted: number;
}

/** How much the state held as of a seq. */
export interface StateCounts {
  /** The seq the counts are as of. */
  seq: number;
  sessions: RecordCounts;
  /** Live turns of live sessions. */
  turns: number;
  skills: RecordCounts;
  memory: RecordCounts;
  checkpoints: number;
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
