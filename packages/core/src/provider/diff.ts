/**
 * The diff of two points of the `state` stream (docs/contract.md §11): per
 * record kind, what was created, changed and deleted between them, compared
 * on the whole projection (tombstones included) that time travel folds.
 */
import type { Log } from '../log/log.js';
import { canonicalJson } from '../log/json.js';
import type { Checkpoint } from '../records/checkpoints.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import { compareStrings } from '../records/order.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { FoldToOptions, PointInput, ResolvedPoint } from './time-travel.js';
import { advance, foldTo, resolvePoint } from './time-travel.js';

/** What happened to one kind of record between two points. */
export interface RecordDiff<T> {
  /** Live at `to`, and absent or a tombstone at `from`. */
  created: T[];
  /** Live at both points, and different. */
  changed: Array<{ before: T; after: T }>;
  /** Live at `from`, and absent or a tombstone at `to`: each as it was at `from`. */
  deleted: T[];
}

/** The answer of `provider.diff`: each list in id order. */
export interface StateDiff {
  from: ResolvedPoint;
  to: ResolvedPoint;
  sessions: RecordDiff<Session>;
  turns: RecordDiff<Turn>;
  skills: RecordDiff<Skill>;
  memory: RecordDiff<MemoryItem>;
  checkpoints: RecordDiff<Checkpoint>;
}

/** The two points of a diff. */
export interface DiffInput {
  from: PointInput;
  to: PointInput;
}

type Versioned = { id: string; deleted?: boolean };

/** Compares two versions of one kind of record, keyed by id. */
export function diffRecords<T extends Versioned>(before: readonly T[], after: readonly T[]): RecordDiff<T> {
  const live = (list: readonly T[]) => new Map(list.filter((r) => !r.deleted).map((r) => [r.id, r]));
  const was = live(before);
  const is = live(after);
  const out: RecordDiff<T> = { created: [], changed: [], deleted: [] };
  for (const [id, now] of is) {
    const then = was.get(id);
    if (!then) out.created.push(now);
    else if (canonicalJson(then) !== canonicalJson(now)) out.changed.push({ before: then, after: now });
  }
  for (const [id, then] of was) if (!is.has(id)) out.deleted.push(then);
  const byId = (a: Versioned, b: Versioned) => compareStrings(a.id, b.id);
  out.created.sort(byId);
  out.deleted.sort(byId);
  out.changed.sort((a, b) => byId(a.after, b.after));
  return out;
}

/** The diff of two captured projections. */
export function diffSnapshots(before: Snapshot, after: Snapshot, from: ResolvedPoint, to: ResolvedPoint): StateDiff {
  return {
    from,
    to,
    sessions: diffRecords(before.sessions, after.sessions),
    turns: diffRecords(before.turns, after.turns),
    skills: diffRecords(before.skills, after.skills),
    memory: diffRecords(before.memory, after.memory),
    checkpoints: diffRecords(before.checkpoints, after.checkpoints),
  };
}

/**
 * Folds the state at `from` and at `to` and compares them. When `from`
 * comes first, the state at `to` continues from it rather than starting
 * again; `from` after `to` gives the reverse changes.
 */
export async function diffPoints(log: Log, input: DiffInput, options: FoldToOptions = {}): Promise<StateDiff> {
  const from = await resolvePoint(log, input?.from);
  const to = await resolvePoint(log, input?.to);
  const state = await foldTo(log, from.seq, options);
  const before = state.capture();
  if (to.seq >= from.seq) {
    await advance(log, state, to.seq, options);
    return diffSnapshots(before, state.capture(), from, to);
  }
  return diffSnapshots(before, (await foldTo(log, to.seq, options)).capture(), from, to);
}
