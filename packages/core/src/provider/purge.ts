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
import type { PurgedRecords } from '../log/events.js';
import { purgeReasonSchema } from '../log/events.js';
import { idField, shortTextField } from '../records/fields.js';
import { parseInput, scopeInputSchema } from '../records/inputs.js';
import type { PurgeSelector } from '../write/backend.js';
import type { Engine } from './engine.js';

/** `purge` input: exactly one of `id`, `namespace` or `matching`, and a reason. */
export const purgeInputSchema = z
  .strictObject({
    /** A session (with its turns), turn, skill or memory item. */
    id: idField.optional(),
    /** Every session, skill and memory item of this scope and its descendants: a user leaving. */
    namespace: scopeInputSchema.refine((scope) => scope.length > 0, 'must name at least one label: the global scope holds everything').optional(),
    /** Every memory item and turn whose content contains this text (case-sensitive). */
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
 * Purges what `input` selects. An `id` no record has is a `NotFoundError`;
 * a namespace or text that selects nothing appends nothing and returns seq 0.
 */
export async function purgeRecords(engine: Engine, input: PurgeInput): Promise<PurgeResult> {
  const draft = parseInput(purgeInputSchema, input);
  const selector: PurgeSelector =
    draft.id !== undefined ? { id: draft.id } : draft.namespace !== undefined ? { namespace: draft.namespace } : { matching: draft.matching! };
  let seq = 0;
  let targets: PurgedRecords = { sessions: [], turns: [], skills: [], memory: [] };
  await engine.mutateIfNeeded(
    async (tx) => {
      targets = await tx.purgeable(selector);
      const empty = targets.sessions.length + targets.turns.length + targets.skills.length + targets.memory.length === 0;
      if (empty && draft.id !== undefined) throw new NotFoundError('record', draft.id);
      return empty ? undefined : engine.stamper.purge(targets, draft.reason);
    },
    undefined,
    (event) => {
      seq = event.seq;
    },
  );
  const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);
  return { seq, sessions: ids(targets.sessions), turns: ids(targets.turns), skills: ids(targets.skills), memory: ids(targets.memory) };
}
