/** Memory tools: remember, update_memory, recall, forget. */
import type { RecallOptions } from '@agentstate/core';
import { memoryInputs, outputs } from '../schemas.js';
import { defineTool, deleteOnce } from './context.js';

/** The memory tools, by name. */
export const memoryTools = {
  remember: defineTool({
    title: 'Remember a fact',
    description:
      "Writes a durable memory item (a fact, preference or decision) in this server's scope. It survives restarts and is shared with every agent using the same database and scope.",
    input: memoryInputs.remember,
    output: outputs.item,
    effect: 'write',
    async run(input, view, { provider, policy, defaultSource }) {
      const item = await provider.memory.write({ ...input, source: input.source ?? defaultSource(), scope: policy.target(input.scope) });
      return { item: view.memory(item) };
    },
  }),

  update_memory: defineTool({
    title: 'Update a memory item',
    description:
      'Changes a memory item by id: only the given fields change, and the earlier version stays in the replayable history. An expired or forgotten item is not found.',
    input: memoryInputs.update,
    output: outputs.item,
    effect: 'write',
    async run({ id, expectedSyncVersion, ...patch }, view, { provider, policy }) {
      const found = await provider.memory.get(id);
      policy.assertWritable('memory', id, found.scope);
      return { item: view.memory(await provider.memory.update(found.id, { ...patch, syncVersion: expectedSyncVersion })) };
    },
  }),

  recall: defineTool({
    title: 'Recall memory',
    description:
      "Finds memory items in this server's scope: lexically (every query word a prefix of a word of the item), or semantically and hybrid when the server has an embedder. Only items that match are hits, each with a score in (0, 1].",
    input: memoryInputs.recall,
    output: outputs.hits,
    effect: 'read',
    async run({ scope, includeParentScopes, where, ...options }, view, { provider, policy }) {
      const hits = await provider.memory.recall({
        ...options,
        where: where as RecallOptions['where'],
        scope: policy.target(scope),
        includeParentScopes: policy.includeParents(includeParentScopes),
      });
      return { hits: hits.map(view.memory), nextCursor: hits.nextCursor };
    },
  }),

  forget: defineTool({
    title: 'Forget a memory item',
    description:
      'Tombstones a memory item by id: it disappears from recall, but stays in the replayable history. Forgetting an item that is already a tombstone answers with that tombstone; an id that never existed is not_found.',
    input: memoryInputs.forget,
    output: outputs.item,
    effect: 'delete',
    async run(args, view, ctx) {
      return { item: view.memory(await deleteOnce(ctx, 'memory', ctx.provider.memory, args.id, args.operationId)) };
    },
  }),
};
