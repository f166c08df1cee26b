/**
 * The backend-independent part of a purge's erasure (docs/contract.md §7,
 * "Purge"): which stored events hold a text, and the rewrite of the events
 * that carried purged records. A backend only reads the events named by its
 * history index (or its text scan) and writes back what this returns, so
 * one definition decides what a purge erases in every backend.
 */
import { contentHash } from '../embedding/embedder.js';
import type { UpcasterRegistry } from './upcasters.js';
import { changeRecords } from './changes.js';
import { storedPayload } from './compact.js';
import { decodeStateEvent } from './decode.js';
import { type EventRow, eventRow, rowChecksum } from './event-row.js';
import { type StateChange, STATE_SCHEMA_VERSION } from './events.js';
import { payloadJson } from './append.js';
import type { LogEvent } from './log.js';
import { recordHolds } from './holds.js';
import { redactChange } from './redact.js';

/**
 * `text` as it appears inside a JSON string of a stored payload: a backend's
 * raw scan for the events that may hold it (a superset, but for a turn's content
 * stored only as its parts; {@link holdersIn} decides).
 */
export function storedTextForm(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** The ids of each kind of record a purge by text selects: those that hold it, now or in an earlier version. */
export interface Holders {
  sessions: Set<string>;
  turns: Set<string>;
  skills: Set<string>;
  memory: Set<string>;
}

/** Adds to `into` the ids of the records `change` carries that hold `text` (core's `recordHolds`). */
function addHoldersOf(into: Holders, change: StateChange, text: string): void {
  for (const entry of changeRecords(change)) {
    if (entry.kind === 'session' && recordHolds('session', entry.record, text)) into.sessions.add(entry.record.id);
    else if (entry.kind === 'turn' && recordHolds('turn', entry.record, text)) into.turns.add(entry.record.id);
    else if (entry.kind === 'sessionAfterTurn' && recordHolds('turn', entry.turn, text)) into.turns.add(entry.turn.id);
    else if (entry.kind === 'skill' && recordHolds('skill', entry.record, text)) into.skills.add(entry.record.id);
    else if (entry.kind === 'memory' && recordHolds('memory', entry.record, text)) into.memory.add(entry.record.id);
  }
}

/** The ids of the records that, in any of `events` (of the `state` stream), hold `text`. */
export function holdersIn(events: readonly LogEvent[], text: string, upcasters?: UpcasterRegistry): Holders {
  const out: Holders = { sessions: new Set(), turns: new Set(), skills: new Set(), memory: new Set() };
  for (const event of events) addHoldersOf(out, decodeStateEvent(event, upcasters ? { upcasters, trusted: true } : { trusted: true }), text);
  return out;
}

/** One earlier event a purge rewrites: its new row (checksum included) and its new change. */
export interface ErasedEvent {
  row: EventRow;
  change: StateChange;
}

/** What a purge rewrites and drops besides its own event. */
export interface Erasure {
  /** The rewritten events, in seq order. */
  events: ErasedEvent[];
  /** Content hashes of the erased texts: their embedding-cache entries go. */
  contentHashes: string[];
  /** The first rewritten seq (0: none): every stored snapshot at or after it goes. */
  firstSeq: number;
  /** The operations whose input hash the rewrite dropped: their index entries (and snapshot entries) lose it too. */
  operations: string[];
  /**
   * The operations named by a rewritten later event of a batch: the hash on
   * their first event covers the erased record too. A backend reads each one's
   * first event (by the operation index) and passes it to {@link eraseOperationHeads}.
   */
  batches: string[];
}

/**
 * Rewrites `events` (the earlier events the history index names for the
 * purged `ids`, in seq order) with those records erased and `erasedBy` set;
 * an event that carries none of them is left out.
 */
export function eraseEvents(events: readonly LogEvent[], ids: ReadonlySet<string>, purgeSeq: number, upcasters?: UpcasterRegistry): Erasure {
  const out: ErasedEvent[] = [];
  const contents = new Set<string>();
  const operations: string[] = [];
  const batches = new Set<string>();
  for (const event of events) {
    // An event in today's shape is decoded trusted, as history reads it: every event before the
    // purge was checked when it was appended or folded (an unchecked one is folded, and validated,
    // before any write), and its row checksum on read; validating each again was most of a long
    // session's purge. An older one is upcast and validated, so it is rewritten complete.
    const trusted = event.schemaVersion === STATE_SCHEMA_VERSION;
    const redacted = redactChange(decodeStateEvent(event, upcasters ? { upcasters, trusted } : { trusted }), ids, purgeSeq);
    if (!redacted) continue;
    const operation = redacted.change.payload.operation;
    if (operation?.inputHash !== undefined) operations.push(operation.id);
    else if (operation !== undefined) batches.add(operation.id);
    out.push(rewritten(event, operation === undefined ? redacted.change : withoutInputHash(redacted.change)));
    for (const text of redacted.contents) contents.add(text);
  }
  const own = new Set(operations);
  return {
    events: out,
    contentHashes: [...contents].map(contentHash),
    firstSeq: out[0]?.row.seq ?? 0,
    operations,
    batches: [...batches].filter((id) => !own.has(id)),
  };
}

/**
 * Adds to `erasure` the first events of its batches (`heads`, read by the
 * backend), each rewritten with its operation's input hash dropped and
 * nothing else changed: the hash covered an erased record of a later event.
 * A head whose hash is gone already (an earlier purge) is left out.
 */
export function eraseOperationHeads(erasure: Erasure, heads: readonly LogEvent[], upcasters?: UpcasterRegistry): Erasure {
  const added: ErasedEvent[] = [];
  const operations = [...erasure.operations];
  for (const event of heads) {
    const change = decodeStateEvent(event, upcasters ? { upcasters } : {});
    const operation = change.payload.operation;
    if (operation?.inputHash === undefined) continue;
    operations.push(operation.id);
    added.push(rewritten(event, withoutInputHash(change)));
  }
  if (added.length === 0) return erasure;
  const events = [...erasure.events, ...added].sort((a, b) => a.row.seq - b.row.seq);
  return { ...erasure, events, firstSeq: events[0]!.row.seq, operations, batches: [] };
}

/** `change` with its operation's input hash dropped (a change that carries an operation). */
function withoutInputHash(change: StateChange): StateChange {
  return { type: change.type, payload: { ...change.payload, operation: { id: change.payload.operation!.id } } } as StateChange;
}

/** The row of `event` carrying `change`, with its checksum. */
function rewritten(event: LogEvent, change: StateChange): ErasedEvent {
  // The decoded payload is in the current shape: the rewritten row says so.
  const row = eventRow({ ...event, schemaVersion: Math.max(event.schemaVersion, 2) }, payloadJson(storedPayload(change)));
  return { row: { ...row, checksum: rowChecksum(row) }, change };
}
