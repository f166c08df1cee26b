/** The memory store over any backend. */
import { NotFoundError } from '../errors.js';
import { copyMemoryItem } from '../records/copy.js';
import type { RecallOptions, WriteMemoryInput } from '../records/inputs.js';
import { parseInput, writeMemoryInputSchema } from '../records/inputs.js';
import { idField } from '../records/fields.js';
import type { Engine } from './engine.js';
import type { RecallContext } from './recall.js';
import { recall } from './recall.js';
import type { MemoryStore } from './types.js';

/** Builds the {@link MemoryStore} of an engine. */
export function createMemoryStore(engine: Engine, recallContext: RecallContext): MemoryStore {
  const { backend, stamper } = engine;
  return {
    async write(input: WriteMemoryInput) {
      const draft = parseInput(writeMemoryInputSchema, input);
      const change = await engine.mutate(async (tx) => stamper.writeMemory(draft, draft.id === undefined ? undefined : await tx.memoryItem(draft.id)));
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

    async delete(id: string) {
      parseInput(idField, id);
      const change = await engine.mutate(async (tx) => stamper.deleteMemory(await tx.memoryItem(id), id));
      return copyMemoryItem(change.payload.item);
    },
  };
}
