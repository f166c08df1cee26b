/**
 * The total orders every backend returns lists in. Each has a final tie-break
 * on id, so two backends can never disagree.
 */
import type { CheckpointWrite } from './checkpoints.js';
import type { MemoryItem, Session, Skill, Turn } from './records.js';

const ABOVE_BMP_OR_PRIVATE = /[\uD800-\uFFFF]/;

/**
 * Code-point order, the order SQLite's `BINARY` and Postgres's `C` collation
 * give UTF-8 text. JavaScript's `<` compares UTF-16 code units instead, which
 * differs only where a surrogate (a code point above U+FFFF) meets a unit in
 * U+E000–U+FFFF; only strings holding such units take the slow path.
 */
export function compareStrings(a: string, b: string): number {
  const units = a < b ? -1 : a > b ? 1 : 0;
  if (units === 0 || !ABOVE_BMP_OR_PRIVATE.test(a) || !ABOVE_BMP_OR_PRIVATE.test(b)) return units;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates above U+E000–U+FFFF, as the code points they encode are. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** Compares two keys part by part: text in code-point order, numbers by value; a prefix sorts first. */
export function compareTuples(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : compareStrings(String(x), String(y));
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** The position in `sorted` (ordered by `compare`) of its first item at or after `key`. */
export function lowerBound<T>(sorted: readonly T[], key: T, compare: (a: T, b: T) => number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(sorted[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sessions: oldest first (`createdAt`, then `id`). */
export function compareSessions(a: Session, b: Session): number {
  return compareStrings(a.createdAt, b.createdAt) || compareStrings(a.id, b.id);
}

/** Skills: by slug, then id. */
export function compareSkillsBySlug(a: Skill, b: Skill): number {
  return compareStrings(a.slug, b.slug) || compareStrings(a.id, b.id);
}

/** Memory: newest first (`createdAt` desc, then `id` desc). */
export function compareMemoryNewestFirst(a: Pick<MemoryItem | Turn, 'createdAt' | 'id'>, b: Pick<MemoryItem | Turn, 'createdAt' | 'id'>): number {
  return compareStrings(b.createdAt, a.createdAt) || compareStrings(b.id, a.id);
}

/** Turns across sessions: newest first, as memory is recalled. */
export const compareTurnsNewestFirst: (a: Turn, b: Turn) => number = compareMemoryNewestFirst;

/** What orders checkpoints: their key. */
type CheckpointPlace = { threadId: string; namespace: string; checkpointId: string };

/** The order of `CheckpointQueries.list`: `checkpointId`, `threadId`, `namespace`, all descending. */
export function compareCheckpointsNewestFirst(a: CheckpointPlace, b: CheckpointPlace): number {
  return compareStrings(b.checkpointId, a.checkpointId) || compareStrings(b.threadId, a.threadId) || compareStrings(b.namespace, a.namespace);
}

/** Writes by `taskId`, then `idx`. */
export function compareWrites(a: CheckpointWrite, b: CheckpointWrite): number {
  return compareStrings(a.taskId, b.taskId) || a.idx - b.idx;
}
