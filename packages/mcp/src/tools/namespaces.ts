/** The namespaces tool: the scopes under the server's scope that hold live records. */
import { LIMITS } from '@agentstate/core';
import { namespaceInputs, outputs } from '../schemas.js';
import { defineTool } from './context.js';

/** The default number of scopes one answer lists. */
const DEFAULT_NAMESPACES_LIMIT = 100;

/** The namespaces tool. */
export const namespacesTool = defineTool({
  title: 'List scopes',
  description:
    "Lists the scopes under this server's scope that hold live sessions, skills or memory, in label order, as paths relative to the server's scope " +
    "([] is the server's scope itself; pass a path as scope to other tools). A server whose operator did not allow subscopes lists only its own scope. " +
    'Pass the returned nextCursor as cursor, with the same arguments, for the next page.',
  input: namespaceInputs,
  output: outputs.namespaces,
  effect: 'read',
  records: false,
  async run(args, _view, { provider, policy }) {
    const depth = policy.bound.length;
    const prefix = policy.target(args.prefix);
    // Without subscopes only the bound scope is reachable: every deeper scope is cut back to it.
    const relativeDepth = policy.allowSubscopes ? args.maxDepth : 0;
    const scopes = await provider.namespaces({
      prefix,
      maxDepth: relativeDepth === undefined ? undefined : Math.min(LIMITS.scopeDepth, depth + relativeDepth),
      limit: args.limit ?? DEFAULT_NAMESPACES_LIMIT,
      cursor: args.cursor,
    });
    return { scopes: scopes.map((scope) => scope.slice(depth)), nextCursor: scopes.nextCursor };
  },
});
