/**
 * Copies of records handed to callers, so that mutating a returned record
 * never changes the read model behind it.
 */
import type { MemoryItem, Session, Skill, Turn } from './records.js';

/** A copy of a session. */
export function copySession(s: Session): Session {
  return { ...s, scope: [...s.scope], updatedHlc: { ...s.updatedHlc } };
}

/** A copy of a turn. */
export function copyTurn(t: Turn): Turn {
  return { ...t, updatedHlc: { ...t.updatedHlc } };
}

/** A copy of a skill. */
export function copySkill(s: Skill): Skill {
  return { ...s, tags: [...s.tags], scope: [...s.scope], updatedHlc: { ...s.updatedHlc } };
}

/** A copy of a memory item. */
export function copyMemoryItem(m: MemoryItem): MemoryItem {
  return { ...m, scope: [...m.scope], updatedHlc: { ...m.updatedHlc } };
}
