/** The memory store over any backend. */
import { NotFoundError, ValidationError } from '../errors.js';
import { copyMemoryItem } from '../records/copy.js';
import { parseInput, scopeOptionsSchema, updateMemoryInputSchema, writeMemoryInputSchema, writeOptionsSchema } from '../records/inputs.js';
import { memoryKeySchema, type MemoryItem, type Scope } from '../records/records.js';
import { EventTypes } from '../log/events.js';
import { idField } from '../records/fields.js';
import { type ScopeInput, scopeKey, toScope } from '../records/scope.js';
import { memoryId } from '../ids/key-id.js';
import { atIndex, parseBatch } from './batch.js';
import { isExpired } from '../write/stamper.js';
import type { Engine } from './engine.js';
import { type RecallContext, recall } from './recall.js';
import type { MemoryStore } from './types.js';
import { operationCall, storeOperations } from './operations.js';

/** The memory store's writes as idempotent operations. */
const OPERATIONS = storeOperations('memory', {
  write: [EventTypes.MemoryWritten, EventTypes.MemoryUpdated],
  writeMany: [EventTypes.MemoryWritten, EventTypes.MemoryUpdated],
  update: [EventTypes.MemoryUpdated, EventTypes.MemoryWritten],
  delete: [EventTypes.MemoryDeleted],
});

/** The id a write takes when no live item holds its key: its key's item's (docs/contract.md §2), else the caller's. */
function idTaken(draft: { scope?: ScopeInput | undefined; key?: string | null | undefined; id?: string | undefined }): string | undefined {
  return draft.key == null ? draft.id : memoryId(toScope(draft.scope), draft.key);
}

/** Expired items looked up per sweep step. */
const SWEEP_BATCH = 256;

/** Builds the {@link MemoryStore} of an engine. */
export function createMemoryStore(engine: Engine, recallContext: RecallContext): MemoryStore {
  const { backend, stamper } = engine;
  /** `item` when it is live and unexpired now, else `NotFoundError` naming `id`. */
  const live = (item: MemoryItem | undefined, id: string): MemoryItem => {
    if (!item || item.deleted || isExpired(item, stamper.now())) throw new NotFoundError('memory', id);
    return item;
  };
  return {
    async write(input) {
      const draft = parseInput(writeMemoryInputSchema, input);
      const change = await engine.mutate(
        async (tx) => {
          const id = idTaken(draft);
          const holder = draft.key == null ? undefined : await tx.memoryWithKey(toScope(draft.scope), draft.key);
          return stamper.writeMemory(draft, id === undefined || holder ? undefined : await tx.memoryItem(id), holder);
        },
        operationCall(OPERATIONS.write, draft),
      );
      return copyMemoryItem(change.payload.item);
    },

    async writeMany(inputs, options = {}) {
      const drafts = parseBatch(writeMemoryInputSchema, inputs, 'inputs');
      const o = parseInput(writeOptionsSchema, options);
      const own = drafts.findIndex((d) => d.operationId !== undefined);
      if (own >= 0) throw new ValidationError(`inputs.${own}.operationId`, 'one operationId covers the whole batch: pass it in the options');
      const changes = await engine.mutateMany(
        async (tx) => {
          // What earlier elements of the batch wrote, seen by later ones as if each were its own call.
          const byId = new Map<string, MemoryItem>();
          const byKey = new Map<string, MemoryItem>();
          const slot = (scope: Scope, key: string) => `${scopeKey(scope)}\u0000${key}`;
          const out = [];
          for (const [i, draft] of drafts.entries()) {
            const id = idTaken(draft);
            const existing = id === undefined ? undefined : (byId.get(id) ?? (await tx.memoryItem(id)));
            const scope = toScope(draft.scope);
            const k = draft.key == null ? undefined : slot(scope, draft.key);
            const holder = k === undefined ? undefined : byKey.has(k) ? byKey.get(k) : await tx.memoryWithKey(scope, draft.key!);
            const change = atIndex('inputs', i, () => stamper.writeMemory(draft, existing, holder));
            const item = change.payload.item;
            byId.set(item.id, item);
            if (item.key !== null) byKey.set(slot(item.scope, item.key), item);
            out.push(change);
          }
          return out;
        },
        operationCall(OPERATIONS.writeMany, { ...o, inputs: drafts }),
        drafts.length,
      );
      return changes.map((change) => copyMemoryItem(change.payload.item));
    },

    async update(id, input) {
      parseInput(idField, id);
      const patch = parseInput(updateMemoryInputSchema, input);
      // A new key writes the key's item and deletes this one: the result, the item written, is the first event,
      // the one a retry reads back.
      const [change] = await engine.mutateMany(
        async (tx) => {
          const stored = live(await tx.memoryItem(id), id);
          if (patch.key === undefined || patch.key === stored.key) return [stamper.updateMemory(patch, stored)];
          const taken = patch.key !== null && (await tx.memoryWithKey(stored.scope, patch.key)) !== undefined;
          return stamper.rekeyMemory(patch, stored, taken, patch.key === null ? undefined : await tx.memoryItem(memoryId(stored.scope, patch.key)));
        },
        operationCall(OPERATIONS.update, { ...patch, id }),
      );
      return copyMemoryItem(change!.payload.item);
    },

    async get(id) {
      return copyMemoryItem(live(await backend.queries.memoryItem(parseInput(idField, id)), id));
    },

    async getByKey(rawKey, options = {}) {
      const key = parseInput(memoryKeySchema, rawKey);
      const path = toScope(parseInput(scopeOptionsSchema, options).scope);
      const found = await backend.queries.memoryWithKey(path, key);
      if (!found || isExpired(found, stamper.now())) throw new NotFoundError('memory', key);
      return copyMemoryItem(found);
    },

    async getAny(id) {
      const found = await backend.queries.memoryItem(parseInput(idField, id));
      if (!found) throw new NotFoundError('memory', id);
      return copyMemoryItem(found);
    },

    recall(options = {}) {
      return recall(recallContext, options);
    },

    async delete(id, options = {}) {
      parseInput(idField, id);
      const o = parseInput(writeOptionsSchema, options);
      const change = await engine.mutate(async (tx) => stamper.deleteMemory(await tx.memoryItem(id), id), operationCall(OPERATIONS.delete, { ...o, id }));
      return copyMemoryItem(change.payload.item);
    },

    async sweep() {
      const now = stamper.now();
      let swept = 0;
      for (;;) {
        const expired = await backend.queries.expiredMemory(now, SWEEP_BATCH);
        for (const item of expired) {
          // Each tombstone is its own event; the item is looked up again inside the write, so a
          // concurrent delete or an update that moved `expiresAt` is respected.
          try {
            await engine.mutate(async (tx) => {
              const stored = await tx.memoryItem(item.id);
              return stamper.deleteMemory(stored && isExpired(stored, now) ? stored : undefined, item.id);
            });
            swept += 1;
          } catch (error) {
            if (!(error instanceof NotFoundError)) throw error;
          }
        }
        if (expired.length < SWEEP_BATCH) return swept;
      }
    },
  };
}
