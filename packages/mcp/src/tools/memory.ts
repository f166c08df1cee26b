/** Memory tools: remember, update_memory, recall, forget. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RecallOptions } from '@agentstate/core';
import { memoryInputs, outputs } from '../schemas.js';
import { tool, deleteOnce, type ToolContext } from './context.js';

/** Registers the memory tools on `server`. */
export function registerMemoryTools(server: McpServer, ctx: ToolContext): void {
  const { provider, policy } = ctx;

  tool(server, 'remember', {
    title: 'Remember a fact',
    description:
      "Writes a durable memory item (a fact, preference or decision) in this server's scope. It survives restarts and is shared with every agent using the same database and scope.",
    input: memoryInputs.remember,
    output: outputs.item,
    effect: 'write',
    async run(input, view) {
      const item = await provider.memory.write({ ...input, source: input.source ?? ctx.defaultSource(), scope: policy.target(input.scope) });
      return { item: view.memory(item) };
    },
  });

  tool(server, 'update_memory', {
    title: 'Update a memory item',
    description:
      'Changes a memory item by id: only the given fields change, and the earlier version stays in the replayable history. An expired or forgotten item is not found.',
    input: memoryInputs.update,
    output: outputs.item,
    effect: 'write',
    async run({ id, expectedSyncVersion, ...patch }, view) {
      const found = await provider.memory.get(id);
      policy.assertWritable('memory', id, found.scope);
      return { item: view.memory(await provider.memory.update(found.id, { ...patch, syncVersion: expectedSyncVersion })) };
    },
  });

  tool(server, 'recall', {
    title: 'Recall memory',
    description:
      "Finds memory items in this server's scope: lexically (every query word a prefix of a word of the item), or semantically and hybrid when the server has an embedder. Only items that match are hits, each with a score in (0, 1].",
    input: memoryInputs.recall,
    output: outputs.hits,
    effect: 'read',
    async run({ scope, includeParentScopes, where, ...options }, view) {
      const hits = await provider.memory.recall({
        ...options,
        where: where as RecallOptions['where'],
        scope: policy.target(scope),
        includeParentScopes: policy.includeParents(includeParentScopes),
      });
      return { hits: hits.map(view.memory), nextCursor: hits.nextCursor };
    },
  });

  tool(server, 'forget', {
    title: 'Forget a memory item',
    description:
      'Tombstones a memory item by id: it disappears from recall, but stays in the replayable history. Forgetting an item that is already a tombstone answers with that tombstone; an id that never existed is not_found.',
    input: memoryInputs.forget,
    output: outputs.item,
    effect: 'delete',
    async run(args, view) {
      return { item: view.memory(await deleteOnce(ctx, 'memory', provider.memory, args.id, args.operationId)) };
    },
  });
}
