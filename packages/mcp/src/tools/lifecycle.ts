/**
 * History and purge (docs/contract.md §7): `memory_history`, read-only, and
 * `purge`, registered only when the operator started the server with
 * `--allow-purge` (`allowPurge`): it erases for good, so no client gets it by default.
 */
import { purgeReasonSchema } from '@agentstate/core';
import { z } from 'zod';
import { UsageError } from '../usage-error.js';
import { memoryItemOutputSchema, scopeArg } from '../schemas.js';
import { defineTool, eventSourced } from './context.js';

const historyOutput = {
  versions: z.array(z.object({ seq: z.number(), time: z.string(), type: z.string(), erasedBy: z.number().optional(), item: memoryItemOutputSchema })),
};

const ids = z.array(z.string());
const purgeOutput = {
  seq: z.number().describe('The seq of the purge event; 0 when nothing was left to erase.'),
  sessions: ids,
  turns: ids,
  skills: ids,
  memory: ids,
};

/** The memory_history tool. */
export const memoryHistoryTool = defineTool({
  title: 'History of a memory item',
  description: 'Every version of a memory item, oldest first: the event seq, time and type, and the item as that event left it.',
  input: { id: z.string().describe('The memory item id.') },
  output: historyOutput,
  effect: 'read',
  async run(args, view, { provider, policy }) {
    const found = await provider.memory.getAny(args.id);
    policy.assertReadable('memory', args.id, found.scope);
    const versions = (await eventSourced(provider, 'history').history(args.id)).filter((v) => v.kind === 'memory');
    return { versions: versions.map((v) => ({ seq: v.seq, time: v.time, type: v.type, erasedBy: v.erasedBy, item: view.memory(v.record) })) };
  },
});

/** The purge tool, offered only when the operator allows it. */
export const purgeTool = defineTool({
  title: 'Erase for good',
  description:
    "Erases a memory item (by id) or everything in a scope under this server's scope (sessions, skills and memory) for good: the text is removed from the whole history, not only hidden. Give exactly one of id or scope, and a reason (recorded; never the erased text). Cannot be undone.",
  input: {
    id: z.string().optional().describe('A memory item id.'),
    scope: scopeArg,
    reason: purgeReasonSchema.describe('Why: recorded with the purge.'),
  },
  output: purgeOutput,
  effect: 'delete',
  records: false,
  async run(args, _view, { provider, policy }) {
    if ((args.id === undefined) === (args.scope === undefined)) throw new UsageError('give exactly one of id or scope');
    const lifecycle = eventSourced(provider, 'history and cannot purge');
    if (args.id !== undefined) {
      const found = await provider.memory.getAny(args.id);
      policy.assertWritable('memory', args.id, found.scope);
      return { ...(await lifecycle.purge({ id: found.id, reason: args.reason })) };
    }
    const namespace = policy.target(args.scope);
    return { ...(await lifecycle.purge({ namespace, reason: args.reason })) };
  },
});
