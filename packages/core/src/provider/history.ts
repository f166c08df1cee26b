/**
 * History (docs/contract.md §7, "History"): every version of one session,
 * turn, skill or memory item, read from the log through the history index
 * (`StateLookups.recordSeqs`, or `recordEvents` where the backend reads the
 * events through it in one go), so its cost follows the record's own events,
 * not the size of the log. A session's version after each turn append, the
 * bulk of a long session's history, is derived from the turn's clock fields
 * alone, without decoding the whole turn; the conformance suite (E9, E17)
 * holds it byte for byte to the general rule.
 */
import { CorruptionError } from '../errors.js';
import { type ChangeRecord, changeRecords } from '../log/changes.js';
import { decodeStateEvent } from '../log/decode.js';
import { type StateEventType, EventTypes, STATE_SCHEMA_VERSION, sessionAfterTurn, STATE_STREAM } from '../log/events.js';
import type { Log, LogEvent } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import type { Instant } from '../time/instant.js';
import type { StateLookups } from '../write/backend.js';
import { compareVersions } from '../fold/merge-records.js';

/** The kinds of record history covers. */
export type HistoryKind = 'session' | 'turn' | 'skill' | 'memory';

/** One version of a record: the event that wrote it and the record as of that event. */
export type RecordVersion = {
  /** The event's seq in the `state` stream. */
  seq: number;
  /** When the event was appended. */
  time: Instant;
  /** What the event did, e.g. `memory.updated`. */
  type: StateEventType;
  /** The instance that wrote the event, when it named itself. */
  originInstanceId?: string;
  /** Who caused it, when the writer said. */
  actor?: string;
  /** The authenticated principal it was written for, when given. */
  principal?: string;
  /** The id of the idempotent operation that wrote it, if any. */
  operationId?: string;
  /** The seq of the purge that erased this version's content, if one did. */
  erasedBy?: number;
  /**
   * True for a version that lost a merge (docs/contract.md §12, "Merge"): a later version by (HLC,
   * writer) of no higher `syncVersion` (a skill's: `version`), written without it, holds the content instead.
   */
  conflict?: true;
} & ({ kind: 'session'; record: Session } | { kind: 'turn'; record: Turn } | { kind: 'skill'; record: Skill } | { kind: 'memory'; record: MemoryItem });

/**
 * The events of the `state` stream at `seqs` (ascending), consecutive seqs in
 * one read each: a record's events often come in runs. A seq the log lacks
 * reads the event after it, if any: compare seqs.
 */
export async function readStateEvents(log: Log, seqs: readonly number[]): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for (let i = 0; i < seqs.length; ) {
    let j = i + 1;
    while (j < seqs.length && seqs[j] === seqs[j - 1]! + 1) j += 1;
    const run = await log.read({ stream: STATE_STREAM, afterSeq: seqs[i]! - 1, limit: j - i });
    events.push(...run);
    i = j;
  }
  return events;
}

/** One entry of a record's history as a backend reads it: the event the history index names (`event` undefined where the log lacks it). */
export type HistoryEntry = { seq: number; event: LogEvent | undefined };

/** The events the history index names for `id`, each beside its seq: in one read when the backend offers it. */
export async function recordEvents(lookups: StateLookups, log: Log, id: string): Promise<readonly HistoryEntry[]> {
  if (lookups.recordEvents) return lookups.recordEvents(id);
  const seqs = await lookups.recordSeqs(id);
  const events = await readStateEvents(log, seqs);
  return seqs.map((seq, i) => ({ seq, event: events[i] }));
}

/**
 * Every version of the record with this id, oldest first; `[]` for an id no
 * event carries. A seq the index names but the log lacks, or an event that
 * does not carry the record, is a `CorruptionError`.
 */
export async function recordHistory(lookups: StateLookups, log: Log, id: string, upcasters?: UpcasterRegistry): Promise<RecordVersion[]> {
  const indexed = await recordEvents(lookups, log, id);
  let previous: Extract<ChangeRecord, { kind: HistoryKind }> | undefined;
  const versions = indexed.map(({ seq, event }) => {
    if (event?.seq !== seq)
      throw new CorruptionError(STATE_STREAM, seq, `the history index names this event for ${JSON.stringify(id)} but the log has no such event`);
    // The most frequent version, a session's after a turn append, straight from the payload: a long session has thousands.
    const appended = previous?.kind === 'session' ? sessionAppend(event, id) : undefined;
    if (appended !== undefined && previous?.kind === 'session') {
      previous = { kind: 'session', record: sessionAfterTurn(previous.record, appended.turn) };
      return versionOf(event, EventTypes.TurnAppended, previous, payloadKeys(appended));
    }
    // Every `state` event was checked when it was appended (docs/contract.md §7) and its row checksum was checked on read.
    const change = decodeStateEvent(event, upcasters ? { upcasters, trusted: true } : { trusted: true });
    const records = changeRecords(change);
    const derived = records.find((e) => e.kind === 'sessionAfterTurn' && e.turn.sessionId === id);
    // A turn's event that leaves the session to the fold: the version is derived from the one before, as the fold derives it.
    const found =
      derived?.kind === 'sessionAfterTurn' && previous?.kind === 'session'
        ? { kind: 'session' as const, record: sessionAfterTurn(previous.record, derived.turn) }
        : records.find(
            (e): e is Extract<ChangeRecord, { kind: HistoryKind }> =>
              'record' in e && e.kind !== 'checkpoint' && e.kind !== 'checkpointWrite' && e.record.id === id,
          );
    if (found === undefined)
      throw new CorruptionError(STATE_STREAM, seq, `the history index names this event for ${JSON.stringify(id)} but it does not carry that record`);
    previous = found;
    return versionOf(event, change.type, found, payloadKeys(change.payload));
  });
  return markConflicts(versions);
}

/** The events that write a skill's content or a session's fields: the versions a merge of them orders. */
const CONTENT_WRITES: ReadonlySet<string> = new Set([
  EventTypes.SkillUpserted,
  EventTypes.SkillDeleted,
  EventTypes.SessionCreated,
  EventTypes.SessionUpdated,
  EventTypes.SessionDeleted,
]);

/**
 * Marks the versions that lost a merge, among a memory item's versions, a skill's content writes or a
 * session's field writes: those with a later one by (HLC, writer) of no higher `syncVersion` (a skill's
 * content write: of no higher `version`, which outcomes leave as it is), which its writer wrote without
 * holding them. Walked by that count, each against the greatest of its own or a lower one.
 */
function markConflicts(versions: RecordVersion[]): RecordVersion[] {
  const kind = versions[0]?.kind;
  if (kind === 'turn' || kind === undefined) return versions;
  const writes = kind === 'memory' ? versions : versions.filter((v) => CONTENT_WRITES.has(v.type));
  const count = (v: RecordVersion) => (v.kind === 'skill' ? v.record.version : v.record.syncVersion);
  const byCount = [...writes].sort((a, b) => count(a) - count(b));
  let greatest: RecordVersion['record'] | undefined;
  for (let i = 0; i < byCount.length; ) {
    const sv = count(byCount[i]!);
    let j = i;
    for (; j < byCount.length && count(byCount[j]!) === sv; j += 1) {
      const record = byCount[j]!.record;
      if (greatest === undefined || compareVersions(record, greatest) > 0) greatest = record;
    }
    for (; i < j; i += 1) if (byCount[i]!.record !== greatest && compareVersions(byCount[i]!.record, greatest!) < 0) byCount[i]!.conflict = true;
  }
  return versions;
}

/** The version an event left, from its envelope and the payload's operation id and `erasedBy`. */
function versionOf(
  event: LogEvent,
  type: StateEventType,
  entry: Extract<ChangeRecord, { kind: HistoryKind }>,
  payload: { operationId?: string | undefined; erasedBy?: number | undefined },
): RecordVersion {
  const version = { seq: event.seq, time: event.time, type, kind: entry.kind, record: entry.record } as RecordVersion;
  for (const key of ['originInstanceId', 'actor', 'principal'] as const) if (event[key] !== undefined) version[key] = event[key];
  if (payload.operationId !== undefined) version.operationId = payload.operationId;
  if (payload.erasedBy !== undefined) version.erasedBy = payload.erasedBy;
  return version;
}

/** The operation id and `erasedBy` of an append's payload. */
const payloadKeys = (payload: { operation?: { id: string } | undefined; erasedBy?: number | undefined }) => ({
  operationId: payload.operation?.id,
  erasedBy: payload.erasedBy,
});

/** What a session's version after a turn append needs of the stored turn: see `sessionAfterTurn`. */
type TurnClock = Pick<Turn, 'createdAt' | 'updatedHlc' | 'lastWriterId'>;

/**
 * The payload of `event` when it is a `session.turn_appended` of the current schema version
 * that appends to session `id` without carrying it, with the fields of its turn the session's
 * next version takes: what the general path would decode, without expanding the turn
 * (its content and parts) or listing the change's records. Anything else is `undefined`,
 * for the general path to decode (and refuse if malformed).
 */
function sessionAppend(event: LogEvent, id: string): { turn: TurnClock; operation?: { id: string }; erasedBy?: number } | undefined {
  if (event.type !== EventTypes.TurnAppended || event.schemaVersion !== STATE_SCHEMA_VERSION) return undefined;
  const payload = event.payload as { session?: unknown; turn?: Partial<Turn>; operation?: { id: string }; erasedBy?: number } | null;
  const turn = payload?.turn;
  if (payload === null || typeof payload !== 'object' || payload.session !== undefined || turn?.sessionId !== id) return undefined;
  // A stored turn leaves out a `lastWriterId` equal to its origin (see `../log/compact.ts`), as decoding puts it back.
  const clock: TurnClock = { createdAt: turn.createdAt!, updatedHlc: turn.updatedHlc!, lastWriterId: turn.lastWriterId ?? turn.originInstanceId! };
  return { turn: clock, operation: payload.operation, erasedBy: payload.erasedBy };
}
