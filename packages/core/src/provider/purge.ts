/**
 * Purge (docs/contract.md §7, "Purge"): erasure for good. The selected
 * records become content-free tombstones through one `records.purged`
 * event, and the backend's commit of that event rewrites every earlier event
 * that carried them and drops every derived copy of their text (full-text
 * rows, vectors, embedding-cache entries, snapshots), in the same
 * transaction. The purge event names the records and a reason, never the text.
 */
import { z } from 'zod';
import { NotFoundError } from '../errors.js';
import { type PurgedRecords, EventTypes, purgeReasonSchema } from '../log/events.js';
import { type ErasableKind, type ErasableRecords, inErasedForm } from '../log/holds.js';
import type { Log } from '../log/log.js';
import { idField, shortTextField } from '../records/fields.js';
import { parseInput, scopeInputSchema } from '../records/inputs.js';
import type { Session } from '../records/records.js';
import type { PurgeSelector, StateLookups } from '../write/backend.js';
import type { Engine } from './engine.js';
import { recordEvents } from './history.js';

/** `purge` input: exactly one of `id`, `namespace` or `matching`, and a reason. */
export const purgeInputSchema = z
  .strictObject({
    /** A session (with its turns), turn, skill or memory item. */
    id: idField.optional(),
    /** Every session, skill and memory item of this scope and its descendants: a user leaving. */
    namespace: scopeInputSchema.refine((scope) => scope.length > 0, 'must name at least one label: the global scope holds everything').optional(),
    /** Every record that holds this text (case-sensitive), now or in an earlier version, in a field a purge erases; a session with its turns. */
    matching: shortTextField.min(1, 'must not be empty').optional(),
    /** Why: recorded in the purge event. Never put the erased text here. */
    reason: purgeReasonSchema,
  })
  .refine((input) => [input.id, input.namespace, input.matching].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of id, namespace or matching',
  });

/** Input of `purge`: one selector and a reason. */
export type PurgeInput = z.input<typeof purgeInputSchema>;

/** What a purge erased: the ids of each kind, and the seq of its `records.purged` event (0: nothing matched). */
export interface PurgeResult {
  seq: number;
  sessions: string[];
  turns: string[];
  skills: string[];
  memory: string[];
}

/**
 * Purges what `input` selects; a namespace or text leaves out the records
 * with nothing left to erase ({@link leftToErase}). An `id` no record has is
 * a `NotFoundError`; a namespace or text with nothing left to erase appends
 * nothing and returns seq 0.
 */
export async function purgeRecords(engine: Engine, input: PurgeInput): Promise<PurgeResult> {
  const draft = parseInput(purgeInputSchema, input);
  const selector: PurgeSelector =
    draft.id !== undefined ? { id: draft.id } : draft.namespace !== undefined ? { namespace: draft.namespace } : { matching: draft.matching! };
  let seq = 0;
  let targets: PurgedRecords = { sessions: [], turns: [], skills: [], memory: [] };
  await engine.mutateMany(
    async (tx) => {
      const selected = await tx.purgeable(selector);
      if (draft.id !== undefined && count(selected) === 0) throw new NotFoundError('record', draft.id);
      // A record named by id is purged again if asked: only a selection leaves out what an earlier purge erased.
      targets = draft.id !== undefined ? selected : await leftToErase(tx, engine.backend.log, selected);
      if (count(targets) === 0) return [];
      const purge = engine.stamper.purge(targets, draft.reason);
      // In the same transaction, after it: the summaries that cover an erased turn are marked stale.
      return [purge, ...(await coveringSummaries(tx, targets)).map((session) => engine.stamper.staleSummary(session))];
    },
    undefined,
    undefined,
    (seqs) => {
      seq = seqs[0] ?? 0;
    },
  );
  const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);
  return { seq, sessions: ids(targets.sessions), turns: ids(targets.turns), skills: ids(targets.skills), memory: ids(targets.memory) };
}

/**
 * The live sessions, other than those purged, whose live summary covers a turn of `targets`: one through
 * that turn or a later one (by seq), which the summary's text may quote. A receive asks it too (sync/stale-summaries.ts).
 */
export async function coveringSummaries(tx: StateLookups, targets: PurgedRecords): Promise<Session[]> {
  const purged = new Set(targets.sessions.map((s) => s.id));
  const out: Session[] = [];
  for (const sessionId of new Set(targets.turns.map((t) => t.sessionId))) {
    if (purged.has(sessionId)) continue;
    const session = await tx.session(sessionId);
    const summary = session?.summary;
    if (!session || session.deleted || summary === undefined || summary.stale) continue;
    const erased = targets.turns.filter((t) => t.sessionId === sessionId);
    const through = erased.find((t) => t.id === summary.through) ?? (await tx.lastTurns(sessionId, 0)).find((t) => t.id === summary.through);
    if (through !== undefined && erased.some((t) => t.seq <= through.seq)) out.push(session);
  }
  return out;
}

/** `records` with each list sorted by id (in code-unit order, in place), as a purge event lists them. */
export function sortedById(records: PurgedRecords): PurgedRecords {
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  for (const kind of ['sessions', 'turns', 'skills', 'memory'] as const) (records[kind] as { id: string }[]).sort(byId);
  return records;
}

/** How many records `records` names. */
export function count(records: PurgedRecords): number {
  return records.sessions.length + records.turns.length + records.skills.length + records.memory.length;
}

/**
 * `selected` without the records a purge would not change but for their
 * envelope, so a purge reports only what it erased: a tombstone in its
 * erased form, if every version of it is in that form too. A session's title
 * and metadata and a turn's content never change, so for them the tombstone
 * tells; a skill or memory item may have been written in other words before,
 * so it is left out only when a purge wrote its last version (and so
 * rewrote every one before it).
 */
async function leftToErase(tx: StateLookups, log: Log, selected: PurgedRecords): Promise<PurgedRecords> {
  const erased =
    <K extends ErasableKind>(kind: K) =>
    (record: ErasableRecords[K]) =>
      record.deleted && inErasedForm(kind, record);
  const purgedLast = async (id: string): Promise<boolean> => {
    const last = (await recordEvents(tx, log, id)).at(-1);
    return last !== undefined && 'event' in last && last.event?.type === EventTypes.RecordsPurged;
  };
  const kept = async <R extends { id: string }>(records: readonly R[], done: (record: R) => boolean, confirmed = async (_id: string) => true) => {
    const out: R[] = [];
    for (const record of records) if (!(done(record) && (await confirmed(record.id)))) out.push(record);
    return out;
  };
  return {
    sessions: await kept(selected.sessions, erased('session')),
    turns: await kept(selected.turns, erased('turn')),
    skills: await kept(selected.skills, erased('skill'), purgedLast),
    memory: await kept(selected.memory, erased('memory'), purgedLast),
  };
}
