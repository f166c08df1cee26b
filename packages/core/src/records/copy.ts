/**
 * Copies of records handed to callers, so that mutating a returned record
 * never changes the read model behind it.
 */
import { jsonClone } from '../log/json.js';
import type { MemoryItem, Session, Skill, Turn } from './records.js';
import type { Checkpoint, CheckpointWrite } from './checkpoints.js';
import type { JsonValue } from './json.js';

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
  return { ...c, checkpoint: copyJson(c.checkpoint), metadata: copyJson(c.metadata), updatedHlc: { ...c.updatedHlc } };
}

/** A copy of a checkpoint write. */
export function copyCheckpointWrite(w: CheckpointWrite): CheckpointWrite {
  return { ...w, value: copyJson(w.value) };
}

/**
 * A deep copy of a stored JSON value (checked when it was written, so it
 * holds JSON values only): new arrays and objects, the same strings. A
 * checkpoint is mostly a few long strings (a framework's serialized state),
 * which text round-tripping would encode and decode again on every call.
 */
function copyJson<T extends JsonValue>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const copy: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value)) copy[key] = copyJson(value[key]!);
  return copy as T;
}
