/**
 * Folding the `state` stream into the tables: catch-up (events a bare log
 * append wrote) and rebuild. Every event goes through core's fold rules
 * (`checkChange`, the step replay, verify and import take), checked against
 * the tables, so a log the live API could not have written is refused here
 * too, with a `CorruptionError` naming its seq; then the projection applies
 * it as it applies a live commit.
 */
import type { StateChange, UpcasterRegistry } from '@agentstate/core';
import type { FoldView } from '@agentstate/core/backend';
import { CorruptionError, decodeStateEvent, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { changeHlc, describeError, foldableChange, maxHlc, operationEntry } from '@agentstate/core/backend';
import { mapSqliteError } from './errors.js';
import type { SqliteLog } from './log.js';
import type { Projection } from './projection.js';
import type { TableLookups } from './queries.js';

/** Events folded per read while catching up or rebuilding. */
export const FOLD_BATCH = 5_000;

/** Options of {@link foldPending}. */
export interface FoldOptions {
  upcasters?: UpcasterRegistry | undefined;
  /** Called after each batch folded, with the events folded so far and the events to fold (as verify reports its replay). */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/** The tables as the fold's rules read them. */
export function foldView(tables: TableLookups): FoldView {
  return {
    ...tables,
    checkpointAt: (key) => tables.checkpoints.at(key),
    checkpointWriteExists: (key, taskId, idx) => tables.checkpoints.writeExists(key, taskId, idx),
    checkpointThreadExists: (threadId) => tables.checkpoints.threadExists(threadId),
  };
}

/**
 * Folds events of the `state` stream after the projection's seq, up to the
 * log head, inside the caller's write transaction; returns how many. Every
 * event is checked against its checksum, decoded in order (payloads a bare
 * log append wrote are validated in full) and checked against the fold's
 * rules; a changed, malformed or impossible one is a `CorruptionError`
 * naming its seq.
 */
export function foldPending(log: SqliteLog, projection: Projection, tables: TableLookups, options: FoldOptions = {}): number {
  const { upcasters, onProgress } = options;
  const state = projection.state();
  const view = foldView(tables);
  let { seq, maxHlc: hlc } = state;
  let folded = 0;
  const total = onProgress === undefined ? 0 : log.headNow(STATE_STREAM) - seq;
  for (;;) {
    const batch = log.readForFold(STATE_STREAM, seq, FOLD_BATCH);
    if (batch.length === 0) break;
    for (const { event, validated } of batch) {
      if (event.seq !== seq + 1) throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${seq + 1}: the stream has a gap`);
      // A payload this library validated when it wrote it, and whose checksum holds, is not validated again.
      const change = decodeStateEvent(event, { upcasters, trusted: validated });
      foldEvent(view, projection, change, event.seq, event.schemaVersion);
      hlc = maxHlc(hlc, changeHlc(change));
      seq = event.seq;
      folded += 1;
    }
    onProgress?.(folded, total);
  }
  if (folded > 0) projection.saveState({ seq, maxHlc: hlc, generation: state.generation });
  return folded;
}

/**
 * Checks the change of the event at `seq` against the fold's rules (a received one that does not
 * chain is merged), then applies it to the tables; a refused change or row is a `CorruptionError` naming `seq`.
 */
export function foldEvent(view: FoldView, projection: Projection, decoded: StateChange, seq: number, schemaVersion: number, onMerge?: () => void): void {
  // A received change that does not chain is applied as its merge, whose records the stored payload does not hold.
  const change = foldableChange(view, decoded, seq, onMerge);
  const operation = change.payload.operation;
  // An operation whose first event carries no hash (a purge erased it) is indexed all the same, as a replay indexes it.
  const unhashed = operation !== undefined && operation.inputHash === undefined && view.operation(operation.id) === undefined;
  try {
    // An event of the current payload schema holds its records as stored; an upcast one does not.
    projection.apply(change, seq, schemaVersion === STATE_SCHEMA_VERSION && change === decoded);
    if (unhashed) projection.putOperation(operationEntry(operation, seq));
  } catch (error) {
    throw corruptionAt(error, seq);
  }
}

/** A row the tables refuse: a `CorruptionError` naming the event that carried it. */
function corruptionAt(error: unknown, seq: number): CorruptionError {
  const mapped = mapSqliteError(error);
  if (mapped instanceof CorruptionError) return mapped;
  return new CorruptionError(STATE_STREAM, seq, `the event cannot be projected: ${describeError(error)}`, { cause: error });
}
