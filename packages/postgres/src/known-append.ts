/**
 * A turn appended to a session this process appended to last, in one round
 * trip (docs/contract.md §7, "Positions"). The process keeps
 * what its own last committed append left of a session ({@link KnownSessions}):
 * the session's version and its last turn number. The stamper decides on
 * those without a read; the write then sends its whole transaction at once
 * (`Database.transaction`): the writers' lock, the session's lock and one statement that checks, under that lock, that the
 * session is still as known (live, the same version and clock, the same
 * last turn), takes the position, inserts the event with its checksum
 * finished by the server (core's `placedChecksum`), bumps the session,
 * indexes the history and inserts the turn. A session another writer
 * changed since fails the check: the statement stores a null position,
 * which the table refuses ({@link isStaleGuess}), the transaction rolls
 * back whole, and the write is tried again with the session read.
 */
import type { EventTypes, Session, StateChangeOf, Turn } from '@agentstate/core';
import { sessionAfterTurn } from '@agentstate/core';
import type { UnplacedEvent } from '@agentstate/core/backend';
import { changeRecordIds, EVENT_COLUMNS } from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';
import { bumpSessionText, TURN_ROW, turnValues } from './projection.js';

/** What this process's last committed append left of a session. */
export interface KnownSession {
  session: Session;
  lastTurn: number;
}

/** Sessions a process keeps at most (and sessions it holds back guesses on); the one it appended to longest ago goes first. */
const KNOWN_MAX = 1_000;

/** The most appends to a session a process makes reading it after a guess there failed, before it guesses again. */
const MAX_HOLD_BACK = 32;

/**
 * The sessions this process appended to, as its own last append to each
 * left them. A session other writers append to as well (many processes on
 * one session) would fail most guesses, each a round trip spent and the
 * write tried again: after a failed guess the process reads the session for
 * its next append there, for twice as many after each guess that fails
 * again, up to {@link MAX_HOLD_BACK}, before it guesses again; a guess that
 * holds ends the hold-back.
 */
export class KnownSessions {
  readonly #known = new Map<string, KnownSession>();
  /** Sessions where a guess failed: appends still to read the session, and how many the last failure held back. */
  readonly #held = new Map<string, { left: number; hold: number }>();

  get(id: string): KnownSession | undefined {
    return this.#known.get(id);
  }

  /** Notes what the committed append of `turn` to `before` left; `guessed`: decided on a guess, which held. */
  note(before: Session, turn: Turn, guessed: boolean): void {
    const held = this.#held.get(before.id);
    if (guessed) this.#held.delete(before.id);
    else if (held !== undefined && held.left > 0) {
      held.left -= 1;
      return;
    }
    bounded(this.#known, before.id, { session: sessionAfterTurn(before, turn), lastTurn: turn.seq });
  }

  /** Forgets a session; `failed`: a guess there failed, so the next appends there read it. */
  forget(id: string, failed: boolean): void {
    this.#known.delete(id);
    if (!failed) return;
    const hold = Math.min(MAX_HOLD_BACK, (this.#held.get(id)?.hold ?? 0.5) * 2);
    bounded(this.#held, id, { left: hold, hold });
  }
}

/** Sets `key` in `map` as its newest entry, dropping its oldest past {@link KNOWN_MAX}. */
function bounded<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= KNOWN_MAX) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/** `$from, …, $to`. */
const params = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `$${from + i}`).join(', ');

/**
 * The two statements of a known append: the session's lock, then the
 * checked append, whose snapshot, taken after the lock, sees what any
 * writer committed to the session before. Parameters of the append: the
 * turn's row (`$1`–`$16`), its writer (`$17`), the ids the history index
 * takes (`$18`), the event's columns but `seq` (`$19`–`$30`, the stream
 * first, `unplacedDigest` last), then the session as known: version, HLC
 * wall and counter, last turn number (`$31`–`$34`).
 */
export function knownAppendTexts(db: Database): { lock: string; append: string } {
  const [stream, ...columns] = EVENT_COLUMNS.split(', ').filter((column) => column !== 'seq' && column !== 'checksum');
  return {
    lock: `SELECT 1 FROM ${db.t('sessions')} WHERE id = $1 FOR UPDATE`,
    append: `WITH placed AS (
        INSERT INTO ${db.t('events')} (${stream}, seq, ${columns.join(', ')}, checksum, validated)
        SELECT $19, p.seq, ${params(20, 29)}, '3:' || encode(sha256(convert_to(p.seq || ':' || $30, 'UTF8')), 'base64'), true
        FROM (SELECT CASE WHEN EXISTS (SELECT 1 FROM ${db.t('sessions')} WHERE id = $1 AND NOT deleted AND sync_version = $31 AND hlc_wall = $32 AND hlc_counter = $33)
          AND coalesce((SELECT seq FROM ${db.t('turns')} WHERE session_id = $1 ORDER BY seq DESC LIMIT 1), 0) = $34
          THEN nextval('${db.t('positions')}') END AS seq) p
        RETURNING seq),
      bumped AS (${bumpSessionText(db, '$1', '$11', '$12', '$17', '$8')}),
      indexed AS (INSERT INTO ${db.t('record_events')} (record_id, seq) SELECT r.id, placed.seq FROM placed, unnest($18::text[]) AS r (id) ON CONFLICT DO NOTHING),
      turned AS (INSERT INTO ${db.t('turns')} (${TURN_ROW}) VALUES (${params(1, 15)}, array_to_tsvector($16::text[])))
      SELECT seq FROM placed`,
  };
}

/**
 * Queues a known append of `change` (its event `prepared`) on `sql`: its rows, the position taken, come with
 * the commit.
 */
export function queueKnownAppend(
  sql: Sql,
  texts: { lock: string; append: string },
  change: StateChangeOf<typeof EventTypes.TurnAppended>,
  prepared: UnplacedEvent<unknown>,
  known: KnownSession,
): Promise<{ seq: number }[]> {
  const { turn } = change.payload;
  const { syncVersion, updatedHlc } = known.session;
  void sql.exec(texts.lock, [turn.sessionId]);
  return sql.later<{ seq: number }>(texts.append, [
    ...turnValues(turn),
    turn.lastWriterId,
    changeRecordIds(change),
    ...prepared.values,
    prepared.digest,
    syncVersion,
    updatedHlc.wall,
    updatedHlc.counter,
    known.lastTurn,
  ]);
}

/** Whether `error` (raw, or mapped with the driver's as its cause) is a known append's check failing: a null position refused. */
export function isStaleGuess(error: unknown): boolean {
  const raw = (error as { cause?: unknown } | null)?.cause ?? error;
  const { code, table, column } = (raw ?? {}) as { code?: unknown; table?: unknown; column?: unknown };
  return code === '23502' && table === 'events' && column === 'seq';
}
