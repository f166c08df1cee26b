/**
 * A change may carry a record in its erased form while the state holds an earlier version of
 * it intact: a sync delivers the events a purge rewrote at their origin before that purge
 * (docs/contract.md §12). The rules then compare it with the erased form of what it follows; and a received
 * record that follows one the state holds erased, in its erased form.
 */
import { type ChangeRecord, changeRecords } from '../log/changes.js';
import type { StateChange } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import { ERASED, eraseMemoryItem, eraseSession, eraseSkill, eraseTurn, redactChange } from '../log/redact.js';
import type { MemoryItem } from '../records/records.js';
import type { FoldView } from './fold-rules.js';

/** Whether `record` equals `erase(record)`; `text` (its first erased field) rules out most records cheaply. */
const isErased = <R>(record: R, text: string, erase: (record: R) => R): boolean => text === ERASED && canonicalJson(erase(record)) === canonicalJson(record);

/** Whether `item` is in its erased form: a purge rewrote it, its key with its text. */
export const isErasedItem = (item: MemoryItem): boolean => isErased(item, item.content, eraseMemoryItem);

/** A record a purge erases. */
type Texted = Extract<ChangeRecord, { kind: 'session' | 'turn' | 'skill' | 'memory' }>;
const texted = (entry: ChangeRecord): entry is Texted => ['session', 'turn', 'skill', 'memory'].includes(entry.kind);

/** Whether `entry`'s record is in its erased form. */
function erasedRecord(entry: Texted): boolean {
  return (
    (entry.kind === 'session' && isErased(entry.record, entry.record.title, eraseSession)) ||
    (entry.kind === 'turn' && isErased(entry.record, entry.record.content, eraseTurn)) ||
    (entry.kind === 'skill' && isErased(entry.record, entry.record.name, eraseSkill)) ||
    (entry.kind === 'memory' && isErasedItem(entry.record))
  );
}

/** The ids of the records `change` carries in their erased form. */
function erasedIds(change: StateChange): Set<string> {
  return new Set(changeRecords(change).flatMap((entry) => (texted(entry) && erasedRecord(entry) ? [entry.record.id] : [])));
}

/** The version of `entry`'s record `view` holds. */
function heldVersion(view: FoldView, entry: Texted): Texted | undefined {
  const { id } = entry.record;
  const record =
    entry.kind === 'session' ? view.session(id) : entry.kind === 'turn' ? view.turn(id) : entry.kind === 'skill' ? view.skill(id) : view.memoryItem(id);
  return record && ({ kind: entry.kind, record } as Texted);
}

/**
 * `change`, received, with the records it carries intact that `view` holds erased erased too, for the rules to compare:
 * a version that arrived erased (its origin purged it before sending) may be followed by one written where it was
 * intact, which this store takes as it comes, and the purge, when it arrives, erases (docs/contract.md §12).
 */
export function erasedAsHeld(view: FoldView, change: StateChange): StateChange {
  if (!change.received) return change;
  const ids = new Set<string>();
  for (const entry of changeRecords(change)) {
    if (!texted(entry) || erasedRecord(entry)) continue;
    const held = heldVersion(view, entry);
    if (held !== undefined && erasedRecord(held)) ids.add(entry.record.id);
  }
  return ids.size === 0 ? change : ({ ...redactChange(change, ids, 0)!.change, received: true } as StateChange);
}

/** `view`, but that the records `change` carries erased read erased too; `view` itself when it carries none. */
export function erasedView(view: FoldView, change: StateChange): FoldView {
  const ids = erasedIds(change);
  if (ids.size === 0) return view;
  const erased = <R extends { id: string }>(record: R | undefined, erase: (record: R) => R) => (record && ids.has(record.id) ? erase(record) : record);
  // Named one by one: a view may be a class, whose methods a spread would not copy.
  return {
    lastTurnSeq: (sessionId) => view.lastTurnSeq(sessionId),
    turnExists: (id) => view.turnExists(id),
    skillIdAt: (scope, slug) => view.skillIdAt(scope, slug),
    operation: (id) => view.operation(id),
    checkpointAt: (key) => view.checkpointAt(key),
    checkpointWriteExists: (key, taskId, idx) => view.checkpointWriteExists(key, taskId, idx),
    checkpointThreadExists: (threadId) => view.checkpointThreadExists(threadId),
    session: (id) => erased(view.session(id), eraseSession),
    turn: (id) => erased(view.turn(id), eraseTurn),
    turnsFrom: (sessionId, fromSeq) => view.turnsFrom(sessionId, fromSeq).map((turn) => (ids.has(turn.id) ? eraseTurn(turn) : turn)),
    skill: (id) => erased(view.skill(id), eraseSkill),
    memoryItem: (id) => erased(view.memoryItem(id), eraseMemoryItem),
    memoryIdWithKey: (scope, key) => {
      const id = view.memoryIdWithKey(scope, key);
      return id !== undefined && ids.has(id) ? undefined : id;
    },
  };
}
