/**
 * A change may carry a record in its erased form while the state holds an earlier version of
 * it intact: a sync delivers the events a purge rewrote at their origin before that purge
 * (docs/contract.md §12). The rules then compare it with the erased form of what it follows.
 */
import { changeRecords } from '../log/changes.js';
import type { StateChange } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import { ERASED, eraseMemoryItem, eraseSession, eraseSkill, eraseTurn } from '../log/redact.js';
import type { MemoryItem } from '../records/records.js';
import type { FoldView } from './fold-rules.js';

/** Whether `record` equals `erase(record)`; `text` (its first erased field) rules out most records cheaply. */
const isErased = <R>(record: R, text: string, erase: (record: R) => R): boolean => text === ERASED && canonicalJson(erase(record)) === canonicalJson(record);

/** Whether `item` is in its erased form: a purge rewrote it, its key with its text. */
export const isErasedItem = (item: MemoryItem): boolean => isErased(item, item.content, eraseMemoryItem);

/** The ids of the records `change` carries in their erased form. */
function erasedIds(change: StateChange): Set<string> {
  const ids = new Set<string>();
  for (const entry of changeRecords(change)) {
    if (
      (entry.kind === 'session' && isErased(entry.record, entry.record.title, eraseSession)) ||
      (entry.kind === 'turn' && isErased(entry.record, entry.record.content, eraseTurn)) ||
      (entry.kind === 'skill' && isErased(entry.record, entry.record.name, eraseSkill)) ||
      (entry.kind === 'memory' && isErasedItem(entry.record))
    )
      ids.add(entry.record.id);
  }
  return ids;
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
