/**
 * History runs (migration 13): a session's history stored beside the
 * session, so that reading it does not mean reading each of its events.
 *
 * A session's version after each turn append is most of a long session's
 * history (docs/contract.md §7, "History"), and its events are spread over
 * the whole log: one page read each, cold. A run holds a stretch of the
 * session's history in one row of `history_runs`, clustered by session:
 * each plain turn append as the few fields its version takes (core's
 * `SessionAppendVersion`, a dozen bytes), any other event as its seq, read
 * from the log when history is asked. A run is written once the session has
 * {@link RUN_LENGTH} versions past its last run: by a live commit appending
 * a turn whose number is a multiple of it, at the end of a fold for the
 * sessions it touched, by a rebuild and by the migration for every session.
 * An append itself writes nothing more. A purge drops the runs of the
 * sessions whose events it rewrites, and writes them again for those it
 * did not erase whole.
 *
 * A run also records `last_turn`, the highest turn number of the session
 * when it was written: turns are numbered in the order they are appended,
 * so the turns appended after the run are those numbered above it, and the
 * history's tail is found without reading the session's other turn rows.
 * Verify rebuilds every run from the log and compares.
 */
import type { LogEvent, StateChange, Turn } from '@agentstate/core';
import { CorruptionError, EventTypes, formatInstant, instantToMs } from '@agentstate/core';
import type { HistoryEntry, SessionAppendVersion } from '@agentstate/core/backend';
import { sessionAppendVersion } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { recordEvents, sessionTailEvents, sessionTailLength, stateEvent } from './history.js';

/** A run is written once a session has at least this many versions past its last run. */
export const RUN_LENGTH = 64;

const SQL = {
  last: 'SELECT last_seq, last_turn FROM history_runs WHERE session_id = ? ORDER BY last_seq DESC LIMIT 1',
  runs: 'SELECT last_seq, last_turn, versions FROM history_runs WHERE session_id = ? ORDER BY last_seq',
  lastTurn: 'SELECT max(seq) AS n FROM turns WHERE session_id = ?',
  insert: 'INSERT INTO history_runs (session_id, last_seq, last_turn, versions) VALUES (?, ?, ?, ?)',
  drop: 'DELETE FROM history_runs WHERE session_id IN (SELECT value FROM json_each(?))',
  dropAll: 'DELETE FROM history_runs',
  sessions: 'SELECT id FROM sessions ORDER BY id',
  withRuns: 'SELECT DISTINCT session_id AS id FROM history_runs ORDER BY session_id',
} as const;

/** A row of `history_runs`. */
export interface RunRow {
  last_seq: number;
  last_turn: number;
  versions: string;
}

/** An entry of a run: a plain turn append's version, or only the seq of an event history reads from the log. */
export type RunEntry = SessionAppendVersion | { seq: number };

/**
 * The stored form of a run: `v`, numbers, five per append (the seq's step from the entry before,
 * the turn's `createdAt` as a step in milliseconds from the append before, the event's time and the
 * turn's clock wall after `createdAt`, the clock's counter) and one per event read from the log (its
 * seq step, negated: a step is at least 1); `c`, by entry index, the fields that changed there.
 * Numbers in one array, not an array per entry: a long session's history parses into one array.
 */
interface StoredRun {
  v: number[];
  c?: Record<string, Changed>;
}

/**
 * The string fields of an append that differ from the append before: the turn's last writer (`w`)
 * and the event's origin (`o`, null for none) when they change, and the event's actor (`a`),
 * principal (`p`) and operation id (`op`) whenever it has them.
 */
interface Changed {
  w?: string;
  o?: string | null;
  a?: string;
  p?: string;
  op?: string;
}

/** True when an instant survives the trip through milliseconds unchanged (canonical instants do). */
const exact = (instant: string): boolean => formatInstant(instantToMs(instant)) === instant;

/** The entry of a history read's event for session `id`: the append's fields where they can be stored exactly. */
export function runEntry(id: string, entry: { seq: number; event: LogEvent | undefined }): RunEntry {
  const append = entry.event === undefined ? undefined : sessionAppendVersion(entry.event, id);
  return append !== undefined && exact(append.time) && exact(append.createdAt) ? append : { seq: entry.seq };
}

/** The runs of session `id`, oldest first. */
export function storedRuns(conn: Connection, id: string): RunRow[] {
  return conn.prepare(SQL.runs).all(id) as RunRow[];
}

/** The sessions that have runs. */
export function sessionsWithRuns(conn: Connection): string[] {
  return (conn.prepare(SQL.withRuns).all() as { id: string }[]).map((row) => row.id);
}

/** The stored text of `entries`, which follow seq `after` (see {@link StoredRun}). */
export function encodeRun(entries: readonly RunEntry[], after: number): string {
  let seq = after;
  let created = 0;
  let writer: string | undefined;
  let origin: string | undefined;
  const run: StoredRun = { v: [] };
  const changes: Record<string, Changed> = {};
  entries.forEach((entry, index) => {
    const step = entry.seq - seq;
    seq = entry.seq;
    if (!('createdAt' in entry)) {
      run.v.push(-step);
      return;
    }
    const ms = instantToMs(entry.createdAt);
    run.v.push(step, ms - created, instantToMs(entry.time) - ms, entry.updatedHlc.wall - ms, entry.updatedHlc.counter);
    created = ms;
    const changed: Changed = {};
    if (entry.lastWriterId !== writer) {
      writer = entry.lastWriterId;
      changed.w = writer;
    }
    if (entry.originInstanceId !== origin) {
      origin = entry.originInstanceId;
      changed.o = origin ?? null;
    }
    if (entry.actor !== undefined) changed.a = entry.actor;
    if (entry.principal !== undefined) changed.p = entry.principal;
    if (entry.operationId !== undefined) changed.op = entry.operationId;
    if (Object.keys(changed).length > 0) changes[index] = changed;
  });
  if (Object.keys(changes).length > 0) run.c = changes;
  return JSON.stringify(run);
}

/** The entries of a run's stored text that follows seq `after`; `undefined` when the text is not one {@link encodeRun} writes. */
export function decodeRun(text: string, after: number): RunEntry[] | undefined {
  let run: StoredRun;
  try {
    run = JSON.parse(text) as StoredRun;
  } catch {
    return undefined;
  }
  const v = run?.v;
  const stored = run?.c ?? {};
  if (!Array.isArray(v) || typeof stored !== 'object' || stored === null) return undefined;
  // By entry index as a number: a lookup by a number key on the parsed object would make a string of it each time.
  const changes = new Map<number, Changed>();
  for (const [index, changed] of Object.entries(stored)) {
    if (typeof changed !== 'object' || changed === null) return undefined;
    changes.set(Number(index), changed);
  }
  let seq = after;
  let created = 0;
  let writer: string | undefined;
  let origin: string | undefined;
  const entries: RunEntry[] = [];
  for (let i = 0; i < v.length; ) {
    const step = v[i]!;
    if (!Number.isSafeInteger(step) || step === 0) return undefined;
    if (step < 0) {
      seq -= step;
      entries.push({ seq });
      i += 1;
      continue;
    }
    if (i + 5 > v.length) return undefined;
    const createdStep = v[i + 1]!;
    const timeAfter = v[i + 2]!;
    const wallAfter = v[i + 3]!;
    const counter = v[i + 4]!;
    if (!Number.isSafeInteger(createdStep) || !Number.isSafeInteger(timeAfter) || !Number.isSafeInteger(wallAfter) || !Number.isSafeInteger(counter))
      return undefined;
    i += 5;
    seq += step;
    created += createdStep;
    const changed = changes.size === 0 ? undefined : changes.get(entries.length);
    if (changed?.w !== undefined) writer = changed.w;
    if (changed?.o !== undefined) origin = changed.o ?? undefined;
    if (writer === undefined) return undefined;
    const createdAt = formatInstant(created);
    // Most events are appended in the millisecond their turn was created: the same text, formatted once.
    const entry: SessionAppendVersion = {
      seq,
      time: timeAfter === 0 ? createdAt : formatInstant(created + timeAfter),
      createdAt,
      updatedHlc: { wall: created + wallAfter, counter },
      lastWriterId: writer,
    };
    if (origin !== undefined) entry.originInstanceId = origin;
    if (changed?.a !== undefined) entry.actor = changed.a;
    if (changed?.p !== undefined) entry.principal = changed.p;
    if (changed?.op !== undefined) entry.operationId = changed.op;
    entries.push(entry);
  }
  return entries;
}

/**
 * Writes the next run of session `id` when it has {@link RUN_LENGTH} versions or more past its last
 * run, inside the caller's write transaction. An event the log cannot give back (damage verify
 * reports) leaves the session without a new run rather than failing the write that got here.
 */
export function extendHistoryRuns(conn: Connection, id: string): void {
  const last = conn.prepare(SQL.last).get(id) as Omit<RunRow, 'versions'> | undefined;
  const after = last?.last_seq ?? 0;
  const lastTurn = last?.last_turn ?? 0;
  if (sessionTailLength(conn, id, after, lastTurn) < RUN_LENGTH) return;
  let tail: ReturnType<typeof sessionTailEvents>;
  try {
    tail = sessionTailEvents(conn, id, after, lastTurn);
  } catch (error) {
    if (error instanceof CorruptionError) return;
    throw error;
  }
  const turn = (conn.prepare(SQL.lastTurn).get(id) as { n: number | null }).n ?? 0;
  const entries = tail.map((entry) => runEntry(id, entry));
  conn.prepare(SQL.insert).run(id, tail[tail.length - 1]!.seq, turn, encodeRun(entries, after));
}

/** {@link extendHistoryRuns} for every session: after a rebuild or the migration that added runs. */
export function extendAllHistoryRuns(conn: Connection): void {
  for (const { id } of conn.prepare(SQL.sessions).all() as { id: string }[]) extendHistoryRuns(conn, id);
}

/** Drops the runs of these sessions. */
export function dropHistoryRuns(conn: Connection, sessionIds: readonly string[]): void {
  if (sessionIds.length > 0) conn.prepare(SQL.drop).run(JSON.stringify(sessionIds));
}

/** Drops the runs of these sessions, whose events a purge rewrote, and writes them again from the log. */
export function rewriteHistoryRuns(conn: Connection, sessionIds: readonly string[]): void {
  dropHistoryRuns(conn, sessionIds);
  for (const id of sessionIds) extendHistoryRuns(conn, id);
}

/** Drops every run: a rebuild writes them again once the tables are. */
export function dropAllHistoryRuns(conn: Connection): void {
  conn.prepare(SQL.dropAll).run();
}

/**
 * The session `change` appends turns to, with the turns it appends: a turn append's, or a suffix
 * replacement's new turns. `undefined` for an event that appends none.
 */
export function appendedTurns(change: StateChange): { sessionId: string; turns: readonly Turn[] } | undefined {
  if (change.type === EventTypes.TurnAppended) return { sessionId: change.payload.turn.sessionId, turns: [change.payload.turn] };
  if (change.type === EventTypes.SuffixReplaced) return { sessionId: change.payload.session.id, turns: change.payload.added };
  return undefined;
}

/**
 * The session whose next run `change`, committed live, may complete: the one it appends a turn to
 * whose number is a multiple of {@link RUN_LENGTH}. One test per append, no read.
 */
export function sessionDue(change: StateChange): string | undefined {
  const appended = appendedTurns(change);
  return appended?.turns.some((turn) => turn.seq % RUN_LENGTH === 0) ? appended.sessionId : undefined;
}

/**
 * The history entries of the record with this id: for a session with runs, the runs' appends, the
 * other events of their stretch read by seq, then the events after the last run; otherwise (and
 * for a run that cannot be read, which verify reports) every event through the history index.
 */
export function historyEntries(conn: Connection, id: string): HistoryEntry[] {
  const runs = storedRuns(conn, id);
  if (runs.length === 0) return recordEvents(conn, id);
  const entries: HistoryEntry[] = [];
  let after = 0;
  let lastTurn = 0;
  for (const run of runs) {
    const decoded = decodeRun(run.versions, after);
    if (decoded === undefined) return recordEvents(conn, id);
    for (const entry of decoded) entries.push('createdAt' in entry ? entry : { seq: entry.seq, event: stateEvent(conn, entry.seq) });
    after = run.last_seq;
    lastTurn = run.last_turn;
  }
  entries.push(...sessionTailEvents(conn, id, after, lastTurn));
  return entries;
}
