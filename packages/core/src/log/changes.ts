/**
 * What a `state` change writes, for any backend that projects it: the
 * records it carries (complete post-images, docs/contract.md §7, but for the
 * session a turn was appended to, which is derived) and the
 * largest HLC among them. A durable backend applies the records in order
 * and remembers the HLC, so its clock restarts past every stored write.
 */
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import type { Checkpoint, CheckpointWrite } from '../records/checkpoints.js';
import { type Hlc, HLC_ZERO, maxHlc } from '../time/hlc.js';
import { type StateChange, EventTypes } from './events.js';

/** One record of a change, tagged with its kind. */
export type ChangeRecord =
  | { kind: 'session'; record: Session }
  /**
   * Not a record: the session of `turn` becomes its next version, derived
   * from the stored one by `sessionAfterTurn` (a `session.turn_appended`
   * that does not carry the session). The session exists and is live: the fold's rules say so.
   */
  | { kind: 'sessionAfterTurn'; turn: Turn }
  | { kind: 'turn'; record: Turn }
  | { kind: 'skill'; record: Skill }
  | { kind: 'memory'; record: MemoryItem }
  | { kind: 'checkpoint'; record: Checkpoint }
  | { kind: 'checkpointWrite'; record: CheckpointWrite }
  /** Not a record: every checkpoint and write of the thread goes. Entries before it must be written first. */
  | { kind: 'checkpointThreadDeletion'; threadId: string };

/**
 * The records a change writes. Applying them in order is the whole
 * projection: a later post-image of a record replaces the earlier one,
 * which is what lets a fold coalesce them.
 */
export function changeRecords(change: StateChange): ChangeRecord[] {
  switch (change.type) {
    case EventTypes.SessionCreated:
    case EventTypes.SessionDeleted:
    case EventTypes.SessionUpdated:
    case EventTypes.SessionCompacted:
      return [{ kind: 'session', record: change.payload.session }];
    case EventTypes.TurnAppended: {
      const { session, turn } = change.payload;
      return [session === undefined ? { kind: 'sessionAfterTurn', turn } : { kind: 'session', record: session }, { kind: 'turn', record: turn }];
    }
    case EventTypes.TurnsRemoved:
      return [{ kind: 'session', record: change.payload.session }, ...turnRecords(change.payload.turns)];
    case EventTypes.SuffixReplaced:
      return [{ kind: 'session', record: change.payload.session }, ...turnRecords(change.payload.removed), ...turnRecords(change.payload.added)];
    case EventTypes.SkillUpserted:
    case EventTypes.SkillDeleted:
    case EventTypes.SkillOutcomeRecorded:
      return [{ kind: 'skill', record: change.payload.skill }];
    case EventTypes.MemoryWritten:
    case EventTypes.MemoryDeleted:
    case EventTypes.MemoryUpdated:
      return [{ kind: 'memory', record: change.payload.item }];
    case EventTypes.CheckpointSaved:
      return [{ kind: 'checkpoint', record: change.payload.checkpoint }];
    case EventTypes.CheckpointWritesSaved:
      return change.payload.writes.map((record) => ({ kind: 'checkpointWrite', record }));
    case EventTypes.CheckpointThreadDeleted:
      return [{ kind: 'checkpointThreadDeletion', threadId: change.payload.threadId }];
    case EventTypes.RecordsPurged: {
      const { sessions, turns, skills, memory } = change.payload;
      return [
        ...sessions.map((record): ChangeRecord => ({ kind: 'session', record })),
        ...turnRecords(turns),
        ...skills.map((record): ChangeRecord => ({ kind: 'skill', record })),
        ...memory.map((record): ChangeRecord => ({ kind: 'memory', record })),
      ];
    }
  }
}

/** The largest HLC among the records of a change (checkpoint writes and thread deletions carry none). */
export function changeHlc(change: StateChange): Hlc {
  let hlc = HLC_ZERO;
  for (const entry of changeRecords(change)) {
    if (entry.kind === 'sessionAfterTurn') hlc = maxHlc(hlc, entry.turn.updatedHlc);
    else if ('record' in entry && 'updatedHlc' in entry.record) hlc = maxHlc(hlc, entry.record.updatedHlc);
  }
  return hlc;
}

function turnRecords(turns: readonly Turn[]): ChangeRecord[] {
  return turns.map((record) => ({ kind: 'turn', record }));
}

/**
 * The ids of the sessions, turns, skills and memory items a change carries,
 * each once, in order: the history index's entries for its event.
 */
export function changeRecordIds(change: StateChange): string[] {
  const ids = new Set<string>();
  for (const entry of changeRecords(change)) {
    // A turn's event that leaves its session for the fold to derive still carries the session.
    if (entry.kind === 'sessionAfterTurn') ids.add(entry.turn.sessionId);
    else if (entry.kind !== 'checkpointThreadDeletion' && entry.kind !== 'checkpoint' && entry.kind !== 'checkpointWrite') ids.add(entry.record.id);
  }
  return [...ids];
}
