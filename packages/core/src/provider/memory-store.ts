/** The memory store over any backend. */
import { NotFoundError } from '../errors.js';
import { copyMemoryItem } from '../records/copy.js';
import type { RecallOptions, WriteMemoryInput, WriteOptions } from '../records/inputs.js';
import { parseInput, writeMemoryInputSchema, writeOptionsSchema } from '../records/inputs.js';
import { EventTypes } from '../log/events.js';
import { idField } from '../records/fields.js';
import type { Engine } from './engine.js';
import type { RecallContext } from './recall.js';
import { recall } from './recall.js';
import type { MemoryStore } from './types.js';
import type { OperationSpec } from './operations.js';
import { operationCall } from './operations.js';

/** The memory store's writes as idempotent operations. */
const OPERATIONS = {
  write: { method: 'memory.write', types: [EventTypes.MemoryWritten] },
  delete: { method: 'memory.delete', types: [EventTypes.MemoryDeleted] },
} as const satisfies Record<string, OperationSpec>;

/** Builds the {@link MemoryStore} of an engine. */
export function createMemoryStore(engine: Engine, recallContext: RecallContext): MemoryStore {
  const { backend, stamper } = engine;
  return {
    async write(input: WriteMemoryInput) {
      const draft = parseInput(writeMemoryInputSchema, input);
      const change = await engine.mutate(
        async (tx) => stamper.writeMemory(draft, draft.id === undefined ? undefined : await tx.memoryItem(draft.id)),
        operationCall(OPERATIONS.write, draft),
      );
      return copyMemoryItem(change.payload.item);
    },

    async get(id: string) {
      const found = await backend.queries.memoryItem(parseInput(idField, id));
      if (!found || found.deleted) throw new NotFoundError('memory', id);
      return copyMemoryItem(found);
    },

    recall(options: RecallOptions = {}) {
      return recall(recallContext, options);
    },

    async delete(id: string, options: WriteOptions = {}) {
      parseInput(idField, id);
      const o = parseInput(writeOptionsSchema, options);
      const change = await engine.mutate(async (tx) => stamper.deleteMemory(await tx.memoryItem(id), id), operationCall(OPERATIONS.delete, { ...o, id }));
      return copyMemoryItem(change.payload.item);
    },
  };
}
