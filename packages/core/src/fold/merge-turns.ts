/**
 * Merging a session's transcript written on two stores apart (docs/contract.md §12, "Merge"): every
 * turn is kept, numbered by its rank in (HLC, writer, id) among the session's turns, so every store
 * numbers them the same whatever order they arrived in, and a removal removes the turns it names.
 */
import { EventTypes, type StateChange, type StateChangeOf } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import type { Envelope, Session, Turn } from '../records/records.js';
import { laterInstant } from '../time/instant.js';
import type { FoldView } from './fold-rules.js';
import { compareVersions } from './merge-records.js';

/**
 * The append `change` merged into the session held: the session's next version (`syncVersion` one more,
 * `updatedHlc` and `lastWriterId` the greater of the two by (HLC, writer), `updatedAt` never back, its
 * other fields as held) and the turn at its rank. Undefined when no rule covers it: the session is
 * missing or deleted, the turn's id is taken, or a tombstone lies where its rank is looked for (its
 * append's clock is no longer known).
 */
export function mergeAppend(view: FoldView, change: StateChangeOf<typeof EventTypes.TurnAppended>): StateChange | undefined {
  const { turn } = change.payload;
  const stored = view.session(turn.sessionId);
  if (!stored || stored.deleted || view.turnExists(turn.id) || compareVersions(turn, stored) === 0) return undefined;
  // Delivery is causal: the turns its writer numbered below it are held here, and every one comes before it.
  const last = view.lastTurnSeq(stored.id);
  if (turn.seq > last + 1) return undefined;
  const after = view.liveTurnsFrom(stored.id, turn.seq);
  if (after.length !== last - turn.seq + 1) return undefined;
  const seq = turn.seq + after.filter((held) => compareTurns(held, turn) < 0).length;
  const session = { ...mergedSession(stored, turn), updatedAt: laterInstant(stored.updatedAt, turn.createdAt) };
  return { ...change, payload: { ...change.payload, session, turn: { ...turn, seq } } };
}

/**
 * The removal `change` (`removeLastTurn`) merged into the session held: the turns it names, by id, become
 * tombstones where they stand here (turns appended apart from it, after them, stay), and the session's next
 * version is as for an append. Undefined when no rule covers it: the session is missing, deleted or another
 * creation, a named turn is not live in it, or its fields differ from those held (written apart from it).
 */
export function mergeRemoval(view: FoldView, change: StateChangeOf<typeof EventTypes.TurnsRemoved>): StateChange | undefined {
  const { session: carried, turns } = change.payload;
  const stored = view.session(carried.id);
  if (!stored || stored.deleted || compareVersions(carried, stored) === 0 || carried.syncVersion > stored.syncVersion) return undefined;
  const fields = (s: Session) => canonicalJson([s.title, s.model, s.metadata, s.scope, s.createdAt, s.originInstanceId]);
  if (fields(carried) !== fields(stored)) return undefined;
  const removed: Turn[] = [];
  for (const tombstone of turns) {
    const held = view.turn(tombstone.id);
    if (held === undefined || held.sessionId !== stored.id || held.deleted) return undefined;
    removed.push({ ...tombstone, seq: held.seq });
  }
  const session = { ...mergedSession(stored, carried), updatedAt: laterInstant(stored.updatedAt, carried.updatedAt) };
  return { ...change, payload: { ...change.payload, session, turns: removed } };
}

/** The session held, `stored`, one version on, with the clock and writer of the greater of it and `version` by (HLC, writer). */
function mergedSession(stored: Session, version: Envelope): Session {
  const { updatedHlc, lastWriterId } = compareVersions(version, stored) > 0 ? version : stored;
  return { ...stored, syncVersion: stored.syncVersion + 1, updatedHlc, lastWriterId };
}

/** A live turn's version is its append, so (HLC, writer, id) orders turns as they were appended. */
function compareTurns(a: Turn, b: Turn): number {
  return compareVersions(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Where a folded `change` inserts its turn among those held: its session and seq, from which the turns
 * held move one seq up before it is put. Of the received appends, only a merged one (`mergeAppend`) or one
 * of schema version 1 or 2 carries its session; the latter always takes a free seq, and moves nothing.
 * An own append never moves a turn, so a replay of an own log does no more than before.
 */
export function turnInsertion(change: StateChange): { sessionId: string; seq: number } | undefined {
  return change.received && change.type === EventTypes.TurnAppended && change.payload.session !== undefined ? change.payload.turn : undefined;
}
