/** Memory tools: remember, update_memory, recall, forget, working_memory_get, working_memory_update. */
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

  working_memory_get: defineTool({
    title: 'Read the working memory',
    description:
      "Reads the working memory of this server's scope: one pinned document (a plan, what you know of the user) kept in front of the model, not recalled. Null when there is none.",
    input: memoryInputs.workingGet,
    output: outputs.working,
    effect: 'read',
    async run({ scope }, view, { provider, policy }) {
      const item = await provider.workingMemory.get({ scope: policy.target(scope) });
      return { item: item === null ? null : view.memory(item) };
    },
  }),

  working_memory_update: defineTool({
    title: 'Update the working memory',
    description:
      "Changes the working memory of this server's scope: `text` replaces the whole document; `append` adds a line at its end; `find` (text it holds exactly once) with `replace` edits it in place. " +
      'Refused, writing nothing, when the result is over the token limit. Every version stays in the history.',
    input: memoryInputs.workingUpdate,
    output: outputs.item,
    effect: 'write',
    async run({ text, append, find, replace, expectedSyncVersion, scope, operationId }, view, { provider, policy }) {
      const common = { scope: policy.target(scope), expectedVersion: expectedSyncVersion, operationId };
      const item =
        text !== undefined && append === undefined && find === undefined && replace === undefined
          ? await provider.workingMemory.replace({ ...common, text })
          : await provider.workingMemory.patch({ ...common, append, find, replace, ...(text === undefined ? {} : { text }) });
      return { item: view.memory(item) };
    },
  }),
};
