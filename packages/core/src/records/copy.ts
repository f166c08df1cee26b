/**
 * Copies of records handed to callers, so that mutating a returned record
 * never changes the read model behind it.
 */
import { jsonClone } from '../log/json.js';
import type { MemoryItem, Session, Skill, Turn } from './records.js';
import type { Checkpoint, CheckpointWrite } from './checkpoints.js';

/** A copy of a session. */
export function copySession(s: Session): Session {
  return { ...s, scope: [...s.scope], metadata: jsonClone(s.metadata), updatedHlc: { ...s.updatedHlc } };
}

/** A copy of a turn. */
export function copyTurn(t: Turn): Turn {
  return { ...t, parts: jsonClone(t.parts), metadata: jsonClone(t.metadata), updatedHlc: { ...t.updatedHlc } };
}

/** A copy of a skill. */
export function copySkill(s: Skill): Skill {
  return { ...s, tags: [...s.tags], scope: [...s.scope], updatedHlc: { ...s.updatedHlc } };
}

/** A copy of a memory item. */
export function copyMemoryItem(m: MemoryItem): MemoryItem {
  return { ...m, scope: [...m.scope], metadata: structuredClone(m.metadata), updatedHlc: { ...m.updatedHlc } };
}

/** A copy of a checkpoint. */
export function copyCheckpoint(c: Checkpoint): Checkpoint {
  return { ...c, checkpoint: jsonClone(c.checkpoint), metadata: jsonClone(c.metadata), updatedHlc: { ...c.updatedHlc } };
}

/** A copy of a checkpoint write. */
export function copyCheckpointWrite(w: CheckpointWrite): CheckpointWrite {
  return { ...w, value: jsonClone(w.value) };
}
