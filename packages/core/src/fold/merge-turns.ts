/**
 * Merging a session's transcript written on two stores apart (docs/contract.md §12, "Merge"): every
 * turn is kept, numbered by its rank in (HLC, writer, id) among the session's turns, so every store
 * numbers them the same whatever order they arrived in, and a removal removes the turns it names: a
 * turn removed on both stores apart is removed once, and a replaced suffix is a removal and appends.
 */
import { EventTypes, type StateChange, type StateChangeOf } from '../log/events.js';
import { appendClock, type Envelope, type Session, type Turn } from '../records/records.js';
import { eraseTurn } from '../log/redact.js';
import { laterInstant } from '../time/instant.js';
import type { FoldView } from './fold-rules.js';
import { compareVersions } from './merge-records.js';
import { sessionApart } from './merge-summary.js';

/**
 * The append `change` merged into the session held: the session's next version (`syncVersion` one more,
 * `updatedHlc` and `lastWriterId` the greater of the two by (HLC, writer), `updatedAt` never back, its
 * other fields as held, deleted too: a delete apart keeps the turns) and the turn at its rank. Undefined when no
 * rule covers it: the session is missing, the turn's id is taken, or a tombstone that lacks the clock of its append
 * (one folded by an earlier build, before {@link withAppendClocks} gave it) lies where its rank is looked for.
 */
export function mergeAppend(view: FoldView, change: StateChangeOf<typeof EventTypes.TurnAppended>): StateChange | undefined {
  const { turn } = change.payload;
  const stored = view.session(turn.sessionId);
  if (!stored || notNew(view, turn) || compareVersions(turn, stored) === 0) return undefined;
  const seq = rank(view, stored, turn);
  if (seq === undefined) return undefined;
  const session = { ...versionOn(stored, turn), updatedAt: laterInstant(stored.updatedAt, turn.createdAt) };
  return { ...change, payload: { ...change.payload, session, turn: { ...turn, seq } } };
}

/**
 * The removal `change` (`removeLastTurn`) merged into the session held: the turns it names, by id, become
 * tombstones where they stand here (turns appended apart from it, after them, stay; one removed here apart
 * too is removed once, `removedHere`), and the session's next version is as for an append. Undefined when
 * no rule covers it: the session is missing or another creation, or a named turn is not in it.
 */
export function mergeRemoval(view: FoldView, change: StateChangeOf<typeof EventTypes.TurnsRemoved>): StateChange | undefined {
  const stored = sessionOfRemoval(view, change.payload.session, change.payload.turns);
  const turns = stored && removedHere(view, stored, change.payload.turns);
  if (!stored || !turns) return undefined;
  const session = { ...versionOn(stored, change.payload.session), updatedAt: laterInstant(stored.updatedAt, change.payload.session.updatedAt) };
  return { ...change, payload: { ...change.payload, session, turns } };
}

/**
 * The replaced suffix `change` (`replaceSuffix`) merged into the session held: its removal as `mergeRemoval`
 * merges one, and its added turns, in their order, at the rank of the first as `mergeAppend` finds one (they
 * share a clock, so no turn held falls between them); the turns held later than them move up. Undefined
 * where either rule would leave it.
 */
export function mergeSuffix(view: FoldView, change: StateChangeOf<typeof EventTypes.SuffixReplaced>): StateChange | undefined {
  const { session: carried, added } = change.payload;
  const stored = sessionOfRemoval(view, carried, change.payload.removed);
  const removed = stored && removedHere(view, stored, change.payload.removed);
  if (!stored || !removed || added.some((turn) => notNew(view, turn))) return undefined;
  const seq = added[0] === undefined ? 0 : rank(view, stored, added[0]);
  if (seq === undefined) return undefined;
  const session = { ...versionOn(stored, carried), updatedAt: laterInstant(stored.updatedAt, carried.updatedAt) };
  return { ...change, payload: { ...change.payload, session, removed, added: added.map((turn, i) => ({ ...turn, seq: seq + i })) } };
}

/**
 * The session held that a removal's post-image `carried` merges into: one it was written apart from, or the one it
 * chains on when a turn it names (`tombstones`) was removed or purged here apart from it.
 */
function sessionOfRemoval(view: FoldView, carried: Session, tombstones: readonly Turn[]): Session | undefined {
  const stored = view.session(carried.id);
  const chains = stored !== undefined && carried.syncVersion === stored.syncVersion + 1;
  const removedApart = tombstones.some((tombstone) => {
    const held = view.turn(tombstone.id);
    return held?.deleted === true && tombstone.syncVersion <= held.syncVersion;
  });
  return sessionApart(view, chains && removedApart ? { ...carried, syncVersion: stored.syncVersion } : carried);
}

/**
 * The seq a received turn takes among the turns of `stored`: after the turns its writer held (it is later
 * than each), before those held here later than it, tombstones ranked by the clock of their append too.
 * Undefined when one of those is a tombstone that lacks that clock (one an earlier build folded).
 */
function rank(view: FoldView, stored: Session, turn: Turn): number | undefined {
  // Delivery is causal: the turns its writer numbered below it are held here, and every one comes before it.
  if (turn.seq > view.lastTurnSeq(stored.id) + 1) return undefined;
  let seq = turn.seq;
  for (const held of view.turnsFrom(stored.id, turn.seq)) {
    const order = compareTurns(held, turn);
    if (order === undefined) return undefined;
    if (order < 0) seq += 1;
  }
  return seq;
}

/**
 * The tombstones a removal written apart leaves of the turns it names (`tombstones`), where they stand here.
 * A turn live here becomes its tombstone; one removed here too, apart from it, stays the tombstone held, one
 * version on with the clock and writer of the greater removal, so both stores end with the same. Undefined
 * when a named turn is not one of the session's.
 */
function removedHere(view: FoldView, stored: Session, tombstones: readonly Turn[]): Turn[] | undefined {
  const removed: Turn[] = [];
  for (const tombstone of tombstones) {
    const held = view.turn(tombstone.id);
    if (held === undefined || held.sessionId !== stored.id) return undefined;
    removed.push(tombstoneHere(held, tombstone));
  }
  return removed;
}

/**
 * The erased tombstone a received purge leaves of `turn` (one it carries), where the turn stands here: `turn` itself,
 * at the seq held when appends merged apart moved it, or, when a removal or purge written apart from it left the
 * tombstone held, that tombstone erased, one version on, as a turn removed on both stores is.
 */
export function purgedTurn(view: FoldView, turn: Turn): Turn {
  const held = view.turn(turn.id);
  if (held === undefined || (held.seq === turn.seq && turn.syncVersion > held.syncVersion)) return turn;
  return eraseTurn(tombstoneHere(held, turn));
}

/**
 * The tombstone `tombstone` (a removal's or a purge's) leaves of the turn held, `held`: itself at the seq held, or,
 * when `held` is a tombstone it was written apart from, `held` one version on with the clock and writer of the greater
 * of the two, so both stores end with the same. It keeps the clock of the turn's append from either (one written
 * before tombstones kept it lacks it).
 */
function tombstoneHere(held: Turn, tombstone: Turn): Turn {
  const appendedHlc = held.appendedHlc ?? tombstone.appendedHlc;
  const next = held.deleted && tombstone.syncVersion <= held.syncVersion ? versionOn(held, tombstone) : { ...tombstone, seq: held.seq };
  return appendedHlc === undefined ? next : { ...next, appendedHlc };
}

/**
 * `change` with each tombstone it carries that lacks the clock of its turn's append (a removal's or purge's written
 * before tombstones kept it) given that clock from the turn held, as a new tombstone carries it: the turn is held here
 * (live, written once, so its own clock is its append's, or a tombstone given it when folded), so every store ranks it
 * alike, the one that wrote it too. `change` itself when none lacks it.
 */
export function withAppendClocks(view: FoldView, change: StateChange): StateChange {
  switch (change.type) {
    case EventTypes.TurnsRemoved: {
      const turns = givenAppendClocks(view, change.payload.turns);
      return turns ? { ...change, payload: { ...change.payload, turns } } : change;
    }
    case EventTypes.SuffixReplaced: {
      const removed = givenAppendClocks(view, change.payload.removed);
      return removed ? { ...change, payload: { ...change.payload, removed } } : change;
    }
    case EventTypes.RecordsPurged: {
      const turns = givenAppendClocks(view, change.payload.turns);
      return turns ? { ...change, payload: { ...change.payload, turns } } : change;
    }
    default:
      return change;
  }
}

/** `tombstones` each with the clock of its turn's append, from the turn held where it lacks one; undefined when none lacks it. */
function givenAppendClocks(view: FoldView, tombstones: readonly Turn[]): Turn[] | undefined {
  if (tombstones.every((tombstone) => tombstone.appendedHlc !== undefined)) return undefined;
  return tombstones.map((tombstone) => {
    const held = tombstone.appendedHlc === undefined ? view.turn(tombstone.id) : undefined;
    const appendedHlc = held && appendClock(held);
    return appendedHlc === undefined ? tombstone : { ...tombstone, appendedHlc };
  });
}

/** Whether a received new turn cannot be one: its id is taken, or it carries the clock of an append, as a tombstone does. */
function notNew(view: FoldView, turn: Turn): boolean {
  return view.turnExists(turn.id) || turn.appendedHlc !== undefined;
}

/** The record held, `stored` (a session or a turn's tombstone), one version on, with the clock and writer of the greater of it and `version` by (HLC, writer). */
function versionOn<R extends Session | Turn>(stored: R, version: Envelope): R {
  const { updatedHlc, lastWriterId } = compareVersions(version, stored) > 0 ? version : stored;
  return { ...stored, syncVersion: stored.syncVersion + 1, updatedHlc, lastWriterId };
}

/**
 * Orders two turns as they were appended: by the clock of their append, their origin (its writer) and id; undefined
 * when a tombstone lacks that clock.
 */
function compareTurns(a: Turn, b: Turn): number | undefined {
  const [clockA, clockB] = [appendClock(a), appendClock(b)];
  if (clockA === undefined || clockB === undefined) return undefined;
  const byClock = compareVersions({ updatedHlc: clockA, lastWriterId: a.originInstanceId }, { updatedHlc: clockB, lastWriterId: b.originInstanceId });
  return byClock || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Where a folded `change` inserts its turns among those held: its session, the seq of the first, and how
 * many, from which the turns held move that many seqs up before they are put. Of the received appends,
 * only a merged one (`mergeAppend`) or one of schema version 1 or 2 carries its session; the latter always
 * takes a free seq, and moves nothing; so does a received suffix that chains. An own change never moves a
 * turn, so a replay of an own log does no more than before.
 */
export function turnInsertion(change: StateChange): { sessionId: string; seq: number; count: number } | undefined {
  if (!change.received) return undefined;
  if (change.type === EventTypes.TurnAppended) return change.payload.session !== undefined ? { ...change.payload.turn, count: 1 } : undefined;
  if (change.type !== EventTypes.SuffixReplaced) return undefined;
  const { added } = change.payload;
  return added[0] && { sessionId: added[0].sessionId, seq: added[0].seq, count: added.length };
}
