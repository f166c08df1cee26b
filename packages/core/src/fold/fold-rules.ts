/**
 * The rules a change must satisfy against the state it folds into: exactly
 * what the stamper guarantees for every change it stamps (see
 * `write/stamper.ts`). A log the live API wrote always satisfies them; a
 * log that breaks one was edited, forged or assembled by hand, and folding
 * it would silently drop or overwrite records (a turn of a missing session,
 * a repeated turn seq, a second `created` for a taken id). Payload shapes
 * and limits are the decoder's business; these rules are referential.
 */
import { CorruptionError } from '../errors.js';
import { type Envelope, keepingAppendClock, type MemoryItem, type Scope, type Session, type Skill, type Turn } from '../records/records.js';
import { sameScope } from '../records/scope.js';
import { isKeyItem } from '../ids/key-id.js';
import { canonicalJson } from '../log/json.js';
import {
  contentClockOf,
  type StateChange,
  EventTypes,
  STATE_STREAM,
  type OutcomeIncrement,
  type PurgedRecords,
  withOutcome,
  withSkillCounts,
} from '../log/events.js';
import { compareHlc } from '../time/hlc.js';
import type { OperationEntry, OperationRef } from '../log/operation.js';
import { eraseMemoryItem, eraseSession, eraseSkill, eraseTurn } from '../log/redact.js';
import type { Checkpoint, CheckpointWrite } from '../records/checkpoints.js';
import type { CheckpointKey } from '../write/backend.js';
import { erasedAsHeld, erasedView, isErasedItem } from './erased-view.js';

/** What the rules look up in the state being folded into; tombstones included. */
export interface FoldView {
  session(id: string): Session | undefined;
  /** The highest turn seq of a session (0 when it has none). */
  lastTurnSeq(sessionId: string): number;
  /** True when a turn with this id exists in any session. */
  turnExists(id: string): boolean;
  /** The turns of a session (live and tombstones) with seq `fromSeq` or later, in seq order. */
  turnsFrom(sessionId: string, fromSeq: number): Turn[];
  /** The turn with this id (live or tombstone), in any session. */
  turn(id: string): Turn | undefined;
  skill(id: string): Skill | undefined;
  /** The id of the skill (live or tombstone) at `(scope, slug)`. */
  skillIdAt(scope: Scope, slug: string): string | undefined;
  memoryItem(id: string): MemoryItem | undefined;
  /** The operation an earlier event carried under this id. */
  operation(id: string): OperationEntry | undefined;
  /** The id of the live memory item of `scope` holding `key`. */
  memoryIdWithKey(scope: Scope, key: string): string | undefined;
  /** The checkpoint at this key. */
  checkpointAt(key: CheckpointKey): Checkpoint | undefined;
  /** True when the task already has a write at `idx` against the checkpoint at `key`. */
  checkpointWriteExists(key: CheckpointKey, taskId: string, idx: number): boolean;
  /** True when the thread has a checkpoint or a write. */
  checkpointThreadExists(threadId: string): boolean;
}

/** A broken rule: the message, without the event's position. */
type Violation = string | undefined;

/**
 * Throws a `CorruptionError` naming `seq` when `change` could not have been
 * stamped against `view`; returns quietly otherwise.
 */
export function checkChange(view: FoldView, change: StateChange, seq: number): void {
  const violation = operationViolation(view, change.payload.operation) ?? recordViolation(erasedView(view, change), erasedAsHeld(view, change));
  if (violation !== undefined) throw new CorruptionError(STATE_STREAM, seq, `${change.type}: ${violation}`);
}

/**
 * An operation id names one write: the engine answers a retry from its first event and appends nothing.
 * A later event of a batch names it again, without a hash.
 */
function operationViolation(view: FoldView, operation: OperationRef | undefined): Violation {
  if (operation === undefined) return undefined;
  const earlier = view.operation(operation.id);
  return earlier === undefined || operation.inputHash === undefined
    ? undefined
    : `operation id ${json(operation.id)} was already used by the event at seq ${earlier.seq}`;
}

function recordViolation(view: FoldView, change: StateChange): Violation {
  switch (change.type) {
    case EventTypes.SessionCreated: {
      const { session } = change.payload;
      if (view.session(session.id)) return `session id ${json(session.id)} is already taken`;
      return firstSave(session);
    }
    case EventTypes.TurnAppended: {
      const { turn } = change.payload;
      const id = change.payload.session?.id ?? turn.sessionId;
      const stored = view.session(id);
      if (!stored || stored.deleted) return `session ${json(id)} does not exist or is deleted`;
      if (stored.syncVersion >= Number.MAX_SAFE_INTEGER) return `session ${json(id)} is at its largest syncVersion`;
      const carried = change.payload.session;
      if (carried) return nextSession(stored, carried, false) ?? turnViolation(view, carried, turn);
      // Without the session (schema version 3), its next version is `sessionAfterTurn(stored, turn)`: one version
      // later, same origin, content and scope, live, `updatedAt` never back, the turn's clock and writer. All of
      // that holds by construction but that the clock moves forward, so only that and the turn are checked.
      if (compareHlc(turn.updatedHlc, stored.updatedHlc) <= 0) return 'updatedHlc did not move forward';
      return turnPlacement(view, id, turn) ?? firstVersion(turn);
    }
    case EventTypes.SessionDeleted: {
      const { session } = change.payload;
      return nextSession(view.session(session.id), session, true);
    }
    case EventTypes.SessionUpdated:
      return updatedSession(view.session(change.payload.session.id), change.payload.session);
    case EventTypes.SessionCompacted:
      return compactedSession(view, view.session(change.payload.session.id), change.payload.session);
    case EventTypes.TurnsRemoved: {
      const { session, turns } = change.payload;
      return nextSession(view.session(session.id), session, false) ?? removedSuffix(view, session, turns);
    }
    case EventTypes.SuffixReplaced: {
      const { session, removed, added } = change.payload;
      if (removed.length === 0 && added.length === 0) return 'it removes and adds nothing';
      return nextSession(view.session(session.id), session, false) ?? removedSuffix(view, session, removed) ?? addedTurns(view, session, added);
    }
    case EventTypes.SkillUpserted:
    case EventTypes.SkillDeleted:
      return skillViolation(view, change.payload.skill, change.type === EventTypes.SkillDeleted);
    case EventTypes.SkillOutcomeRecorded:
      return outcomeViolation(view.skill(change.payload.skill.id), change.payload.skill, change.payload.increment);
    case EventTypes.MemoryWritten: {
      const { item } = change.payload;
      if (view.memoryItem(item.id)) return `memory id ${json(item.id)} is already taken`;
      return firstSave(item) ?? keyViolation(view, item);
    }
    case EventTypes.MemoryDeleted:
    case EventTypes.MemoryUpdated:
      return memoryChangeViolation(view, change.payload.item, change.type === EventTypes.MemoryDeleted);
    case EventTypes.CheckpointSaved:
      return checkpointViolation(view.checkpointAt(change.payload.checkpoint), change.payload.checkpoint);
    case EventTypes.CheckpointWritesSaved:
      return writesViolation(view, change.payload.writes);
    case EventTypes.CheckpointThreadDeleted:
      return view.checkpointThreadExists(change.payload.threadId) ? undefined : `thread ${json(change.payload.threadId)} has no checkpoints or writes`;
    case EventTypes.RecordsPurged:
      return purgeViolation(view, change.payload);
  }
}

/**
 * `records.purged`: each record exists (live or tombstone), appears once,
 * and comes back as its erased tombstone one version later, nothing else changed.
 */
function purgeViolation(view: FoldView, purged: PurgedRecords): Violation {
  const seen = new Set<string>();
  const check = <R extends Envelope & { id: string }>(
    label: string,
    records: readonly R[],
    stored: (id: string) => R | undefined,
    erase: (before: R, record: R) => R,
  ) => {
    for (const record of records) {
      if (seen.has(record.id)) return `${label} ${json(record.id)} is purged twice`;
      seen.add(record.id);
      const before = stored(record.id);
      if (!before) return `${label} ${json(record.id)} does not exist`;
      const violation = nextVersion(before, record, true);
      if (violation !== undefined) return `${label} ${json(record.id)}: ${violation}`;
      const expected = { ...erase(before, record), ...envelopeOf(record), ...('updatedAt' in record ? { updatedAt: record.updatedAt } : {}) };
      if (canonicalJson(expected) !== canonicalJson(record)) return `${label} ${json(record.id)} is not its erased tombstone`;
    }
    return undefined;
  };
  return (
    check('session', purged.sessions, (id) => view.session(id), eraseSession) ??
    // A purge written before tombstones kept the clock of a turn's append carries none, whatever the turn held was given.
    check(
      'turn',
      purged.turns,
      (id) => view.turn(id),
      (before, turn) => eraseTurn(turn.appendedHlc === undefined ? withoutAppendClock(before) : keepingAppendClock(before)),
    ) ??
    // A purge names the content write it erased (its `contentClock`); one written before it did names none.
    check(
      'skill',
      purged.skills,
      (id) => view.skill(id),
      (before, skill) => (skill.contentClock === undefined ? eraseSkill(before) : { ...eraseSkill(before), contentClock: contentClockOf(before) }),
    ) ??
    check('memory item', purged.memory, (id) => view.memoryItem(id), eraseMemoryItem)
  );
}

/** `turn` without the clock of its append. */
function withoutAppendClock(turn: Turn): Turn {
  const { appendedHlc: _, ...rest } = turn;
  return rest;
}

/** The envelope fields of a record. */
function envelopeOf(record: Envelope): Envelope {
  const { syncVersion, originInstanceId, updatedHlc, lastWriterId, deleted } = record;
  return { syncVersion, originInstanceId, updatedHlc, lastWriterId, deleted };
}

/**
 * A checkpoint's first save, or a later save under the same key that keeps
 * its `id` and `createdAt` (docs/contract.md §2: saving again replaces).
 */
function checkpointViolation(stored: Checkpoint | undefined, checkpoint: Checkpoint): Violation {
  // Checkpoints have no tombstones: their envelope is read as a live record's.
  if (!stored) return firstSave({ ...checkpoint, deleted: false });
  return (
    nextVersion({ ...stored, deleted: false }, { ...checkpoint, deleted: false }, false) ??
    changedField(stored, checkpoint, ['id', 'createdAt']) ??
    movedBack(stored, checkpoint)
  );
}

/** One task's writes against one checkpoint, each idx once; a non-negative idx is never written twice. */
function writesViolation(view: FoldView, writes: readonly CheckpointWrite[]): Violation {
  const first = writes[0]!;
  const idxs = new Set<number>();
  for (const write of writes) {
    const moved = changedField(first, write, ['threadId', 'namespace', 'checkpointId', 'taskId', 'taskPath']);
    if (moved !== undefined) return `the writes are not all of one task and checkpoint: ${moved}`;
    if (idxs.has(write.idx)) return `idx ${write.idx} is written twice`;
    idxs.add(write.idx);
    if (write.idx >= 0 && view.checkpointWriteExists(write, write.taskId, write.idx)) {
      return `task ${json(write.taskId)} already has a write at idx ${write.idx}, which is never overwritten`;
    }
  }
  return undefined;
}

/**
 * A later version of a live memory item, or of a deleted one its key brings back (docs/contract.md §4): the
 * same scope and creation, `updatedAt` never back; a tombstone changes nothing else, an update may change
 * the content fields and take a key no other live item of the scope holds.
 */
function memoryChangeViolation(view: FoldView, item: MemoryItem, deleted: boolean): Violation {
  const stored = view.memoryItem(item.id);
  // Its key's item, in the scope held (a scope changed is refused below as such); an erased version (a purge
  // rewrote it since) no longer shows the key that brought it back, and an erased tombstone may follow one too: versions
  // that arrived erased merge deleted, as against a purge held here (merge-records.ts), where its writer held them live.
  const brought = stored?.deleted === true && (isErasedItem(item) || (!deleted && isKeyItem({ ...item, scope: stored.scope })));
  if (!stored || (stored.deleted && !brought)) return `memory item ${json(item.id)} does not exist or is already deleted`;
  const kept = nextVersion(stored, item, deleted) ?? changedField(stored, item, ['createdAt']) ?? samePlace(stored, item);
  if (kept !== undefined || !deleted) return kept ?? keyViolation(view, item);
  return (
    changedField(stored, item, ['kind', 'content', 'source', 'key', 'expiresAt']) ??
    (canonicalJson(stored.metadata) === canonicalJson(item.metadata) ? undefined : 'metadata changed')
  );
}

/** A live item's key must not be held by another live item of its scope. */
function keyViolation(view: FoldView, item: MemoryItem): Violation {
  if (item.key === null) return undefined;
  const holder = view.memoryIdWithKey(item.scope, item.key);
  return holder === undefined || holder === item.id ? undefined : `memory key ${json(item.key)} in this scope is held by ${json(holder)}`;
}

function turnViolation(view: FoldView, session: Session, turn: Turn, expected = view.lastTurnSeq(session.id) + 1): Violation {
  return turnPlacement(view, session.id, turn, expected) ?? sameClockAsSession(session, turn) ?? firstVersion(turn);
}

/** A new turn belongs to its session, takes the next seq and an unused id. */
function turnPlacement(view: FoldView, sessionId: string, turn: Turn, expected = view.lastTurnSeq(sessionId) + 1): Violation {
  if (turn.sessionId !== sessionId) return `the turn belongs to session ${json(turn.sessionId)}, not ${json(sessionId)}`;
  if (turn.seq !== expected) return `turn seq ${turn.seq} of session ${json(sessionId)}, expected ${expected}`;
  if (view.turnExists(turn.id)) return `turn id ${json(turn.id)} is already taken`;
  if (turn.appendedHlc !== undefined) return 'a new turn carries appendedHlc';
  return undefined;
}

/** A turn an event writes carries its session's new HLC and writer. */
function sameClockAsSession(session: Session, turn: Turn): Violation {
  if (compareHlc(turn.updatedHlc, session.updatedHlc) !== 0) return "the turn's updatedHlc differs from its session's";
  if (turn.lastWriterId !== session.lastWriterId) return "the turn's writer differs from its session's";
  return undefined;
}

/**
 * `tombstones` (oldest first) replace exactly the newest live turns of the
 * session, one version later, with nothing else changed.
 */
function removedSuffix(view: FoldView, session: Session, tombstones: readonly Turn[]): Violation {
  const first = tombstones[0];
  if (first === undefined) return undefined;
  const live = view.turnsFrom(session.id, first.seq).filter((turn) => !turn.deleted);
  if (live.length !== tombstones.length || live.some((t, i) => t.id !== tombstones[i]!.id)) {
    return `the removed turns are not the newest live turns of session ${json(session.id)}`;
  }
  for (const [i, tombstone] of tombstones.entries()) {
    const stored = live[i]!;
    const violation =
      nextVersion(stored, tombstone, true) ??
      changedField(stored, tombstone, ['sessionId', 'seq', 'role', 'content', 'createdAt']) ??
      // A removal written before tombstones kept the clock of the turn's append carries none.
      (tombstone.appendedHlc === undefined || compareHlc(tombstone.appendedHlc, stored.updatedHlc) === 0
        ? undefined
        : 'appendedHlc is not the clock of its append') ??
      (canonicalJson([stored.parts, stored.metadata]) !== canonicalJson([tombstone.parts, tombstone.metadata]) ? 'the parts or metadata changed' : undefined) ??
      sameClockAsSession(session, tombstone);
    if (violation !== undefined) return `turn ${json(tombstone.id)}: ${violation}`;
  }
  return undefined;
}

/** New turns numbered on from the highest seq ever, with distinct unused ids. */
function addedTurns(view: FoldView, session: Session, added: readonly Turn[]): Violation {
  const ids = new Set<string>();
  let expected = view.lastTurnSeq(session.id);
  for (const turn of added) {
    expected += 1;
    if (ids.has(turn.id)) return `turn id ${json(turn.id)} is added twice`;
    ids.add(turn.id);
    const violation = turnViolation(view, session, turn, expected);
    if (violation !== undefined) return violation;
  }
  return undefined;
}

/** A live session's next version, bumped by a turn or deleted. */
function nextSession(stored: Session | undefined, session: Session, deleted: boolean): Violation {
  if (!stored || stored.deleted) return `session ${json(session.id)} does not exist or is deleted`;
  return (
    nextVersion(stored, session, deleted) ??
    changedField(stored, session, ['title', 'model', 'createdAt']) ??
    // A record shared with the stored version (as spreading it shares it) is unchanged without serialising it.
    (stored.metadata !== session.metadata && canonicalJson(stored.metadata) !== canonicalJson(session.metadata) ? 'metadata changed' : undefined) ??
    samePlace(stored, session)
  );
}

/**
 * `session.updated`: a live session's next version, live, with the same
 * `model` and creation, `updatedAt` never back; its title, metadata and
 * scope may change (docs/contract.md §4, `sessions.update`).
 */
function updatedSession(stored: Session | undefined, session: Session): Violation {
  if (!stored || stored.deleted) return `session ${json(session.id)} does not exist or is deleted`;
  return nextVersion(stored, session, false) ?? changedField(stored, session, ['model', 'createdAt']) ?? movedBack(stored, session);
}

/**
 * `session.compacted`: a live session's next version, its other fields as they were, with a summary through
 * a live turn of the session, or a stale one through any of its turns (a purge's, docs/contract.md §4, "Compaction").
 */
function compactedSession(view: FoldView, stored: Session | undefined, session: Session): Violation {
  const through = session.summary?.through;
  if (through === undefined) return 'it carries no summary';
  const turn = view.turn(through);
  const held = turn?.sessionId === session.id && (session.summary?.stale === true || !turn.deleted);
  return nextSession(stored, session, false) ?? (held ? undefined : `turn ${json(through)} is not a live turn of the session`);
}

function skillViolation(view: FoldView, skill: Skill, deleted: boolean): Violation {
  const stored = view.skill(skill.id);
  const holder = view.skillIdAt(skill.scope, skill.slug);
  if (!stored) {
    if (deleted) return `skill ${json(skill.id)} does not exist`;
    if (holder !== undefined) return `skill ${json(skill.slug)} in this scope already exists with id ${json(holder)}`;
    if (skill.version !== 1) return `a new skill has version ${skill.version}, expected 1`;
    return firstSave(skill) ?? ((skill.contentClock ?? skill.outcomes) ? 'a new skill holds a content clock or outcomes' : undefined);
  }
  const kept =
    nextVersion(stored, skill, deleted) ?? changedField(stored, skill, ['slug', 'createdAt']) ?? samePlace(stored, skill) ?? keptCounts(stored, skill);
  if (kept !== undefined) return kept;
  if (deleted) {
    if (stored.deleted) return `skill ${json(skill.id)} is already deleted`;
    if (skill.version !== stored.version + 1) return `version ${skill.version}, expected ${stored.version + 1}`;
    return changedContent(stored, skill) ?? changedField(stored, skill, ['uses', 'wins']);
  }
  if (skill.version === stored.version + 1) return undefined;
  // An outcome keeps the content version: a live skill, one more use, at most one more win.
  if (skill.version !== stored.version) return `version ${skill.version}, expected ${stored.version} or ${stored.version + 1}`;
  if (stored.deleted) return `skill ${json(skill.id)} is deleted, so no outcome can be recorded`;
  if (skill.uses !== stored.uses + 1 || (skill.wins !== stored.wins && skill.wins !== stored.wins + 1)) {
    return 'an outcome adds one use and at most one win';
  }
  return changedContent(stored, skill);
}

/**
 * `skill.outcome_recorded`: a live skill's next version that adds exactly the
 * increment to `uses` and `wins` and changes nothing else but the envelope
 * and `updatedAt` (which never moves back); the content `version` stays.
 */
function outcomeViolation(stored: Skill | undefined, skill: Skill, inc: OutcomeIncrement): Violation {
  if (!stored || stored.deleted) return `skill ${json(skill.id)} does not exist or is deleted`;
  const kept = nextVersion(stored, skill, false) ?? changedField(stored, skill, ['slug', 'createdAt', 'version']) ?? samePlace(stored, skill);
  if (kept !== undefined) return kept;
  if (skill.uses !== stored.uses + inc.uses) return `uses ${skill.uses}, expected ${stored.uses} + ${inc.uses}`;
  if (skill.wins !== stored.wins + inc.wins) return `wins ${skill.wins}, expected ${stored.wins} + ${inc.wins}`;
  const counted = withSkillCounts(skill, contentClockOf(stored), withOutcome(stored.outcomes, inc));
  return changedContent(stored, skill) ?? sameCounts(counted, skill, 'an outcome keeps the content clock and adds its increment to the outcomes');
}

/** A content write (an upsert, a delete) is its own content clock and keeps the outcomes counted. */
function keptCounts(stored: Skill, skill: Skill): Violation {
  return sameCounts(withSkillCounts(skill, skill, stored.outcomes), skill, 'a content write is its own content clock and keeps the outcomes');
}

/**
 * `skill` holds the content clock and outcomes `expected` holds, or neither: an event written before skills held
 * them carries neither, and is taken as it is.
 */
function sameCounts(expected: Skill, skill: Skill, rule: string): Violation {
  if (skill.contentClock === undefined && skill.outcomes === undefined) return undefined;
  return canonicalJson([expected.contentClock, expected.outcomes]) === canonicalJson([skill.contentClock, skill.outcomes]) ? undefined : rule;
}

/** A next version stays in its scope (a shared scope is unchanged without comparing it), and its `updatedAt` never moves back. */
function samePlace(stored: { scope: Scope; updatedAt: string }, record: { scope: Scope; updatedAt: string }): Violation {
  return stored.scope === record.scope || sameScope(stored.scope, record.scope) ? movedBack(stored, record) : 'the scope changed';
}

function changedContent(stored: Skill, skill: Skill): Violation {
  if (skill.tags.length !== stored.tags.length || skill.tags.some((t, i) => t !== stored.tags[i])) return 'the tags changed';
  return changedField(stored, skill, ['name', 'body', 'check']);
}

/** A record's first save: a first version, last updated when created. */
function firstSave(record: Envelope & { createdAt: string; updatedAt: string }): Violation {
  return firstVersion(record) ?? (record.updatedAt !== record.createdAt ? 'updatedAt differs from createdAt' : undefined);
}

/** A later save's `updatedAt` never moves back. */
function movedBack(stored: { updatedAt: string }, record: { updatedAt: string }): Violation {
  return record.updatedAt < stored.updatedAt ? 'updatedAt moved back' : undefined;
}

/** The envelope of a record's first version. */
function firstVersion(record: Envelope): Violation {
  if (record.syncVersion !== 1) return `syncVersion ${record.syncVersion} on creation, expected 1`;
  if (record.deleted) return 'created as deleted';
  if (record.lastWriterId !== record.originInstanceId) return 'the first writer differs from the origin';
  return undefined;
}

/** The envelope of a replacement of `stored`: one write later, same origin, a later clock. */
function nextVersion(stored: Envelope, record: Envelope, deleted: boolean): Violation {
  if (record.syncVersion !== stored.syncVersion + 1)
    return `syncVersion ${record.syncVersion} follows ${stored.syncVersion}, expected ${stored.syncVersion + 1}`;
  if (record.originInstanceId !== stored.originInstanceId) return `originInstanceId changed from ${json(stored.originInstanceId)}`;
  if (compareHlc(record.updatedHlc, stored.updatedHlc) <= 0) return 'updatedHlc did not move forward';
  if (record.deleted !== deleted) return deleted ? 'a deletion that is not a tombstone' : 'an update that is a tombstone';
  return undefined;
}

function changedField<T extends object>(stored: T, record: T, keys: ReadonlyArray<keyof T>): Violation {
  const key = keys.find((k) => stored[k] !== record[k]);
  return key === undefined ? undefined : `${String(key)} changed`;
}

function json(value: string): string {
  return JSON.stringify(value);
}
