/**
 * The diff of two points of the `state` stream (docs/contract.md §11): per
 * record kind, what was created, changed and deleted between them, compared
 * on the whole projection (tombstones included) that time travel folds.
 */
import { z } from 'zod';
import type { InMemoryState } from '../fold/state.js';
import { changeRecords } from '../log/changes.js';
import type { StateChange } from '../log/events.js';
import type { Log } from '../log/log.js';
import { canonicalJson } from '../log/json.js';
import type { Checkpoint } from '../records/checkpoints.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import { compareStrings } from '../records/order.js';
import { copyCheckpoint, copyMemoryItem, copySession, copySkill, copyTurn } from '../records/copy.js';
import { SNAPSHOT_PARTS } from '../snapshot/parts.js';
import type { Snapshot } from '../snapshot/snapshot.js';
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

/** What a diff compares: records by kind (checkpoints whole, the other kinds only those touched). */
type Versions = Omit<Snapshot, 'seq' | 'operations' | 'checkpointWrites'>;

/** The ids of the records the events between two points touched, each with its version at the earlier point. */
interface Touched {
  sessions: Map<string, Session | undefined>;
  turns: Map<string, Turn | undefined>;
  skills: Map<string, Skill | undefined>;
  memory: Map<string, MemoryItem | undefined>;
}

/** The records of `versions` that exist, copied as a capture copies them. */
function present<T>(versions: Iterable<T | undefined>, copy: (record: T) => T): T[] {
  const out: T[] = [];
  for (const record of versions) if (record !== undefined) out.push(copy(record));
  return out;
}

/** Notes, before `change` is applied to `state`, the version of each record it touches that no earlier change touched. */
function noteTouched(state: InMemoryState, touched: Touched, change: StateChange): void {
  const note = <T>(map: Map<string, T | undefined>, id: string, get: (id: string) => T | undefined) => {
    if (!map.has(id)) map.set(id, get(id));
  };
  for (const entry of changeRecords(change)) {
    if (entry.kind === 'sessionAfterTurn') note(touched.sessions, entry.turn.sessionId, (id) => state.session(id));
    else if (entry.kind === 'session') note(touched.sessions, entry.record.id, (id) => state.session(id));
    else if (entry.kind === 'turn') note(touched.turns, entry.record.id, (id) => state.turn(id));
    else if (entry.kind === 'skill') note(touched.skills, entry.record.id, (id) => state.skill(id));
    else if (entry.kind === 'memory') note(touched.memory, entry.record.id, (id) => state.memoryItem(id));
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
  const now = <T>(ids: Iterable<string>, get: (id: string) => T | undefined, copy: (record: T) => T): T[] => present([...ids].map(get), copy);
  const atLow: Versions = {
    sessions: present(touched.sessions.values(), copySession),
    turns: present(touched.turns.values(), copyTurn),
    skills: present(touched.skills.values(), copySkill),
    memory: present(touched.memory.values(), copyMemoryItem),
    checkpoints: checkpointsAtLow,
  };
  const atHigh: Versions = {
    sessions: now(touched.sessions.keys(), (id) => state.session(id), copySession),
    turns: now(touched.turns.keys(), (id) => state.turn(id), copyTurn),
    skills: now(touched.skills.keys(), (id) => state.skill(id), copySkill),
    memory: now(touched.memory.keys(), (id) => state.memoryItem(id), copyMemoryItem),
    checkpoints: present(state.checkpoints.allCheckpoints(), copyCheckpoint),
  };
  const [before, after] = from.seq <= to.seq ? [atLow, atHigh] : [atHigh, atLow];
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
