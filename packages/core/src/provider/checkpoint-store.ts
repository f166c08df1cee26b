/** The checkpoint store over any backend (docs/contract.md §2, "Checkpoints"). */
import {
  deleteThreadOptionsSchema,
  getCheckpointInputSchema,
  listCheckpointsOptionsSchema,
  putCheckpointInputSchema,
  putWritesInputSchema,
} from '../records/checkpoint-inputs.js';
import type { Checkpoint, CheckpointTuple } from '../records/checkpoints.js';
import { copyCheckpoint, copyCheckpointWrite } from '../records/copy.js';
import { idField } from '../records/fields.js';
import { parseInput } from '../records/inputs.js';
import type { JsonObject } from '../records/json.js';
import { EventTypes } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import type { CheckpointKey, CheckpointQueries } from '../write/backend.js';
import type { Engine } from './engine.js';
import { operationCall, storeOperations } from './operations.js';
import type { CheckpointStore } from './types.js';

/** The checkpoint store's writes as idempotent operations. */
const OPERATIONS = storeOperations('checkpoints', {
  put: [EventTypes.CheckpointSaved],
  putWrites: [EventTypes.CheckpointWritesSaved],
  deleteThread: [EventTypes.CheckpointThreadDeleted],
});

/** Checkpoints read per step while a metadata filter skips some. */
const FILTER_BATCH = 256;

/** Builds the {@link CheckpointStore} of an engine. */
export function createCheckpointStore(engine: Engine): CheckpointStore {
  const { backend, stamper } = engine;
  const queries = backend.queries.checkpoints;
  return {
    async put(input) {
      const draft = parseInput(putCheckpointInputSchema, input);
      const change = await engine.mutate(async (tx) => stamper.saveCheckpoint(draft, await tx.checkpoints.at(draft)), operationCall(OPERATIONS.put, draft));
      return copyCheckpoint(change.payload.checkpoint);
    },

    async putWrites(input) {
      const draft = parseInput(putWritesInputSchema, input);
      const change = await engine.mutateIfNeeded(
        async (tx) =>
          stamper.saveWrites(
            draft,
            (await tx.checkpoints.writes(draft)).filter((w) => w.taskId === draft.taskId),
          ),
        operationCall(OPERATIONS.putWrites, draft),
      );
      return change?.payload.writes.map(copyCheckpointWrite) ?? [];
    },

    async get(input) {
      const { threadId, namespace, checkpointId } = parseInput(getCheckpointInputSchema, input);
      const found = checkpointId === undefined ? await queries.latest(threadId, namespace) : await queries.at({ threadId, namespace, checkpointId });
      return found === undefined ? undefined : withWrites(queries, found);
    },

    async list(options = {}) {
      const o = parseInput(listCheckpointsOptionsSchema, options);
      const limit = o.limit ?? 0;
      const narrowed = { ...(o.threadId === undefined ? {} : { threadId: o.threadId }), ...(o.namespace === undefined ? {} : { namespace: o.namespace }) };
      // `before` is the position just ahead of every checkpoint with that id: ids are non-empty.
      let after: CheckpointKey | undefined = o.before === undefined ? undefined : { checkpointId: o.before, threadId: '', namespace: '' };
      const wanted = o.metadata === undefined ? undefined : metadataMatcher(o.metadata);
      const found: Checkpoint[] = [];
      for (;;) {
        const batchSize = wanted ? FILTER_BATCH : limit;
        const batch = await queries.list({ ...narrowed, ...(after ? { after } : {}), limit: batchSize });
        for (const c of batch) if (!wanted || wanted(c.metadata)) found.push(c);
        if (limit > 0 && found.length >= limit) break;
        if (!wanted || batch.length < batchSize) break;
        const last = batch[batch.length - 1]!;
        after = { checkpointId: last.checkpointId, threadId: last.threadId, namespace: last.namespace };
      }
      const page = limit > 0 ? found.slice(0, limit) : found;
      return Promise.all(page.map((c) => withWrites(queries, c)));
    },

    async deleteThread(threadId, options = {}) {
      parseInput(idField, threadId);
      const o = parseInput(deleteThreadOptionsSchema, options);
      await engine.mutateIfNeeded(
        async (tx) => stamper.deleteCheckpointThread(threadId, await tx.checkpoints.threadExists(threadId)),
        operationCall(OPERATIONS.deleteThread, { ...o, threadId }),
      );
    },
  };
}

/** A checkpoint and its pending writes, copied. */
async function withWrites(queries: CheckpointQueries, checkpoint: Checkpoint): Promise<CheckpointTuple> {
  return { checkpoint: copyCheckpoint(checkpoint), pendingWrites: (await queries.writes(checkpoint)).map(copyCheckpointWrite) };
}

/** True for metadata holding every key of `wanted` with an equal JSON value. */
function metadataMatcher(wanted: JsonObject): (metadata: JsonObject) => boolean {
  const expected = Object.entries(wanted).map(([key, value]) => [key, canonicalJson(value)] as const);
  return (metadata) => expected.every(([key, value]) => Object.hasOwn(metadata, key) && canonicalJson(metadata[key]) === value);
}
