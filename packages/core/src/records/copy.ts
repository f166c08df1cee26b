/**
 * Copies of records handed to callers, so that mutating a returned record
 * never changes the read model behind it.
 */
import type { MemoryItem, Session, Skill, Turn } from './records.js';
import type { Checkpoint, CheckpointWrite } from './checkpoints.js';

/**
 * A deep copy of a value already known to be JSON (a stored record's
 * metadata or parts, validated when written): no text round trip, which
 * costs several times more on the small values records hold.
 */
function copyJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  // `for…in` with an own-key check visits what `Object.keys` lists, in its order, without allocating the list.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = copyJson((value as Record<string, unknown>)[key]);
    // An own `__proto__` key stays a key, as JSON.parse makes it, never the prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out as T;
}

/** A copy of a session. */
export function copySession(s: Session): Session {
  const copy = { ...s, scope: [...s.scope], metadata: copyJson(s.metadata), updatedHlc: { ...s.updatedHlc } };
  if (s.summary !== undefined) copy.summary = { ...s.summary, updatedHlc: { ...s.summary.updatedHlc } };
  if (s.fieldsClock !== undefined) copy.fieldsClock = { ...s.fieldsClock, updatedHlc: { ...s.fieldsClock.updatedHlc } };
  return copy;
}

/** A copy of a turn. */
export function copyTurn(t: Turn): Turn {
  const copy = { ...t, parts: copyJson(t.parts), metadata: copyJson(t.metadata), updatedHlc: { ...t.updatedHlc } };
  if (t.appendedHlc !== undefined) copy.appendedHlc = { ...t.appendedHlc };
  return copy;
}

/** A copy of a skill. */
export function copySkill(s: Skill): Skill {
  const copy = { ...s, tags: [...s.tags], scope: [...s.scope], updatedHlc: { ...s.updatedHlc } };
  if (s.contentClock !== undefined) copy.contentClock = { ...s.contentClock, updatedHlc: { ...s.contentClock.updatedHlc } };
  if (s.outcomes !== undefined) copy.outcomes = { ...s.outcomes };
  return copy;
}

/** A copy of a memory item. */
export function copyMemoryItem(m: MemoryItem): MemoryItem {
  return { ...m, scope: [...m.scope], metadata: copyJson(m.metadata), updatedHlc: { ...m.updatedHlc } };
}

/** A copy of a checkpoint. */
export function copyCheckpoint(c: Checkpoint): Checkpoint {
  return { ...c, checkpoint: copyJson(c.checkpoint), metadata: copyJson(c.metadata), updatedHlc: { ...c.updatedHlc } };
}

/** A copy of a checkpoint write. */
export function copyCheckpointWrite(w: CheckpointWrite): CheckpointWrite {
  return { ...w, value: copyJson(w.value) };
}
