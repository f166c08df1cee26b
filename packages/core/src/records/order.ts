/**
 * The total orders every backend returns lists in. Each has a final tie-break
 * on id, so two backends can never disagree.
 */
import type { MemoryItem, Session, Skill } from './records.js';

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sessions: oldest first (`createdAt`, then `id`). */
export function compareSessions(a: Session, b: Session): number {
  return cmp(a.createdAt, b.createdAt) || cmp(a.id, b.id);
}

/** Skills: by slug, then id. */
export function compareSkillsBySlug(a: Skill, b: Skill): number {
  return cmp(a.slug, b.slug) || cmp(a.id, b.id);
}

/** Skills: oldest first (`createdAt`, then `id`). */
export function compareSkillsByAge(a: Skill, b: Skill): number {
  return cmp(a.createdAt, b.createdAt) || cmp(a.id, b.id);
}

/** Memory: newest first (`createdAt` desc, then `id` desc). */
export function compareMemoryNewestFirst(a: MemoryItem, b: MemoryItem): number {
  return cmp(b.createdAt, a.createdAt) || cmp(b.id, a.id);
}

/** Plain code-unit string order, the one SQL `COLLATE BINARY` uses. */
export const compareStrings = cmp;
