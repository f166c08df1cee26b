/**
 * The diff of two points of the `state` stream (docs/contract.md §11): per
 * record kind, what was created, changed and deleted between them, compared
 * on the whole projection (tombstones included) that time travel folds.
 */
import { z } from 'zod';
import type { InMemoryState } from '../fold/state.js';
import { type ChangeRecord, changeRecords } from '../log/changes.js';
import type { StateChange } from '../log/events.js';
import type { Log } from '../log/log.js';
import { canonicalJson } from '../log/json.js';
import type { Checkpoint } from '../records/checkpoints.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import { compareStrings } from '../records/order.js';
import { copyCheckpoint, copyMemoryItem, copySession, copySkill, copyTurn } from '../records/copy.js';
import { SNAPSHOT_PARTS } from '../snapshot/parts.js';
import { parseInput } from '../records/inputs.js';
import { type PointInput, type ResolvedPoint, resolvePoint } from './time-travel.js';
import { type FoldToOptions, advance } from '../fold/fold.js';
import { ViewFold } from '../fold/view-fold.js';

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

/** The keys of a diff's input; each point is checked as it is resolved. */
const diffKeys = z.strictObject({ from: z.unknown(), to: z.unknown() }).partial();

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

/** A kind of record a diff compares by the ids the events between the points touched. */
type TouchedKind = 'sessions' | 'turns' | 'skills' | 'memory';

/** The ids of the records the events between two points touched, by kind, each with its version at the earlier point. */
type Touched = Record<TouchedKind, Map<string, Versioned | undefined>>;

/** How a kind is read by id from a state, and copied as a capture copies it. */
interface Kind {
  get(state: InMemoryState, id: string): Versioned | undefined;
  copy(record: Versioned): Versioned;
}
const KINDS: Record<TouchedKind, Kind> = {
  sessions: { get: (state, id) => state.session(id), copy: copySession },
  turns: { get: (state, id) => state.turn(id), copy: copyTurn },
  skills: { get: (state, id) => state.skill(id), copy: copySkill },
  memory: { get: (state, id) => state.memoryItem(id), copy: copyMemoryItem },
};

/** The kind each record entry of a change belongs to (a derived session version: `sessions`). */
const KIND_OF: Partial<Record<ChangeRecord['kind'], TouchedKind>> = {
  session: 'sessions',
  sessionAfterTurn: 'sessions',
  turn: 'turns',
  skill: 'skills',
  memory: 'memory',
};

/** The records of `versions` that exist, copied as a capture copies them. */
function present<T>(versions: Iterable<T | undefined>, copy: (record: T) => T): T[] {
  const out: T[] = [];
  for (const record of versions) if (record !== undefined) out.push(copy(record));
  return out;
}

/** Notes in `touched` (by kind, id → version), before `change` is applied to `state`, each record it touches that no earlier change touched. */
function noteTouched(state: InMemoryState, touched: Touched, change: StateChange): void {
  for (const entry of changeRecords(change)) {
    const of = KIND_OF[entry.kind];
    if (of === undefined) continue;
    const id = entry.kind === 'sessionAfterTurn' ? entry.turn.sessionId : (entry as { record: Versioned }).record.id;
    if (!touched[of].has(id)) touched[of].set(id, KINDS[of].get(state, id));
  }
}

/**
 * Folds the state at the earlier point, then the events up to the later
 * one, noting the records they touch, and compares only those: a record no
 * event touched in between is the same at both points, so it is neither
 * created, changed nor deleted. The answer is that of comparing the two
 * whole projections, without capturing either. Checkpoints (which a thread
 * deletion removes without naming them) are compared whole. `from` after
 * `to` gives the reverse changes.
 */
export async function diffPoints(log: Log, input: DiffInput, options: FoldToOptions = {}): Promise<StateDiff> {
  parseInput(diffKeys, input);
  const from = await resolvePoint(log, input.from, ['from']);
  const to = await resolvePoint(log, input.to, ['to']);
  // Folded as a view at the earlier point is: its snapshot's parts restored as stored, checked by their binding.
  const state = await (await ViewFold.open(log, Math.min(from.seq, to.seq), options)).state(SNAPSHOT_PARTS);
  const touched: Touched = { sessions: new Map(), turns: new Map(), skills: new Map(), memory: new Map() };
  const checkpointsAtLow = present(state.checkpoints.allCheckpoints(), copyCheckpoint);
  // Nothing asks this state for history: its index is not built.
  state.deferHistory();
  await advance(log, state, Math.max(from.seq, to.seq), options, (change) => noteTouched(state, touched, change));
  const atLow: Record<string, Versioned[]> = { checkpoints: checkpointsAtLow };
  const atHigh: Record<string, Versioned[]> = { checkpoints: present(state.checkpoints.allCheckpoints(), copyCheckpoint) };
  for (const [of, { get, copy }] of Object.entries(KINDS) as [TouchedKind, Kind][]) {
    atLow[of] = present(touched[of].values(), copy);
    atHigh[of] = present(
      [...touched[of].keys()].map((id) => get(state, id)),
      copy,
    );
  }
  const [before, after] = from.seq <= to.seq ? [atLow, atHigh] : [atHigh, atLow];
  const diffs = Object.keys(atLow).map((of) => [of, diffRecords(before[of]!, after[of]!)]);
  return { from, to, ...Object.fromEntries(diffs) } as StateDiff;
}
