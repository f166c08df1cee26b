/** Memory tools: remember, update_memory, recall, forget. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RecallOptions } from '@agentstate/core';
import { memoryInputs, outputs } from '../schemas.js';
import { CLOSED_WORLD, answer, repeatedDelete, type ToolContext } from './context.js';
import { viewFor } from '../views.js';

/** Registers the memory tools on `server`. */
export function registerMemoryTools(server: McpServer, ctx: ToolContext): void {
  const { provider, policy } = ctx;

  server.registerTool(
    'remember',
    {
      title: 'Remember a fact',
      description:
        "Writes a durable memory item (a fact, preference or decision) in this server's scope. It survives restarts and is shared with every agent using the same database and scope.",
      inputSchema: memoryInputs.remember,
      outputSchema: outputs.item,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      const item = await provider.memory.write({
        content: args.content,
        kind: args.kind,
        source: args.source ?? ctx.defaultSource(),
        id: args.id,
        key: args.key,
        metadata: args.metadata,
        expiresAt: args.expiresAt,
        scope: policy.target(args.scope),
        operationId: args.operationId,
      });
      return { item: viewFor(args.full).memory(item) };
    }),
  );

  server.registerTool(
    'update_memory',
    {
      title: 'Update a memory item',
      description:
        'Changes a memory item by id: only the given fields change, and the earlier version stays in the replayable history. An expired or forgotten item is not found.',
      inputSchema: memoryInputs.update,
      outputSchema: outputs.item,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      const found = await provider.memory.get(args.id);
      policy.assertWritable('memory', args.id, found.scope);
      const item = await provider.memory.update(found.id, {
        content: args.content,
        kind: args.kind,
        source: args.source,
        key: args.key,
        metadata: args.metadata,
        expiresAt: args.expiresAt,
        syncVersion: args.expectedSyncVersion,
      });
      return { item: viewFor(args.full).memory(item) };
    }),
  );

  server.registerTool(
    'recall',
    {
      title: 'Recall memory',
      description:
        "Finds memory items in this server's scope: lexically (every query word a prefix of a word of the item), or semantically and hybrid when the server has an embedder. Only items that match are hits, each with a score in (0, 1].",
      inputSchema: memoryInputs.recall,
      outputSchema: outputs.hits,
      annotations: { readOnlyHint: true, idempotentHint: true, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      const scope = policy.target(args.scope);
      const hits = await provider.memory.recall({
        query: args.query,
        kinds: args.kinds,
        limit: args.limit,
        mode: args.mode,
        order: args.order,
        minScore: args.minScore,
        match: args.match,
        where: args.where as RecallOptions['where'],
        scope,
        includeParentScopes: policy.includeParents(args.includeParentScopes),
        cursor: args.cursor,
      });
      return { hits: hits.map(viewFor(args.full).hit), nextCursor: hits.nextCursor };
    }),
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget a memory item',
      description:
        'Tombstones a memory item by id: it disappears from recall, but stays in the replayable history. Forgetting an item that is already a tombstone answers with that tombstone; an id that never existed is not_found.',
      inputSchema: memoryInputs.forget,
      outputSchema: outputs.item,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      // A live item (expired ones included) or a tombstone; one that never existed is not_found.
      const found = await provider.memory.getAny(args.id);
      policy.assertWritable('memory', args.id, found.scope);
      const item = found.deleted
        ? await repeatedDelete(found, args.operationId, (operationId) => provider.memory.delete(found.id, { operationId }))
        : await provider.memory.delete(found.id, { operationId: args.operationId });
      return { item: viewFor(args.full).memory(item) };
    }),
  );
}
