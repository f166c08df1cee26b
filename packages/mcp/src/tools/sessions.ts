/** Session tools: create, append a turn, read a transcript, list, delete. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Scope, Session } from '@agentstate/core';
import { sameScope } from '@agentstate/core';
import { compareSessions } from '@agentstate/core/backend';
import { outputs, sessionInputs } from '../schemas.js';
import { hashScope, scopedSessionId, sessionScopeHash } from '../session-scope.js';
import { CLOSED_WORLD, answer, type ToolContext } from './context.js';

/** The default number of sessions a listing returns. */
const DEFAULT_LIST_LIMIT = 20;

/** Throws unless the session `id` may be read through this server. */
export function assertSessionReadable(ctx: ToolContext, id: string): void {
  ctx.sessionPolicy.assertReadable('session', id, sessionScopeHash(id));
}

/** Live sessions in exactly `scope`, oldest first. */
export async function sessionsIn(ctx: ToolContext, scope: Scope): Promise<Session[]> {
  const hashed = hashScope(scope);
  const all = await ctx.provider.sessions.list();
  return all.filter((s) => sameScope(sessionScopeHash(s.id), hashed));
}

/** Registers the session tools on `server`. */
export function registerSessionTools(server: McpServer, ctx: ToolContext): void {
  const { provider, policy } = ctx;
  const assertWritable = (id: string): void => ctx.sessionPolicy.assertWritable('session', id, sessionScopeHash(id));

  server.registerTool(
    'session_create',
    {
      title: 'Create a session',
      description: "Starts a durable conversation in this server's scope. Append its turns with session_append_turn; resume it later with session_read.",
      inputSchema: sessionInputs.create,
      outputSchema: outputs.session,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      const id = scopedSessionId(policy.target(args.scope), ctx.ids.next());
      return { session: await provider.sessions.create({ id, title: args.title, model: args.model }) };
    }),
  );

  server.registerTool(
    'session_append_turn',
    {
      title: 'Append a turn',
      description: "Appends one turn (user, assistant, tool or system) to a session's transcript. Turns are numbered 1, 2, 3… in order of arrival.",
      inputSchema: sessionInputs.appendTurn,
      outputSchema: outputs.turn,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      assertWritable(args.sessionId);
      return { turn: await provider.sessions.appendTurn({ sessionId: args.sessionId, role: args.role, content: args.content }) };
    }),
  );

  server.registerTool(
    'session_read',
    {
      title: 'Read a transcript',
      description: 'Reads a session and its transcript in order. Use limit and the returned nextCursor (or afterSeq) to page through long ones.',
      inputSchema: sessionInputs.read,
      outputSchema: outputs.transcript,
      annotations: { readOnlyHint: true, idempotentHint: true, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      assertSessionReadable(ctx, args.sessionId);
      const session = await provider.sessions.get(args.sessionId);
      const turns = await provider.sessions.turns(args.sessionId, { afterSeq: args.afterSeq, limit: args.limit, cursor: args.cursor });
      return { session, turns, nextCursor: turns.nextCursor };
    }),
  );

  server.registerTool(
    'session_list',
    {
      title: 'List sessions',
      description: "Lists the sessions of this server's scope, newest first unless asked otherwise.",
      inputSchema: sessionInputs.list,
      outputSchema: outputs.sessions,
      annotations: { readOnlyHint: true, idempotentHint: true, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      const sessions = await sessionsIn(ctx, policy.target(args.scope));
      if ((args.order ?? 'newest') === 'newest') sessions.sort((a, b) => compareSessions(b, a));
      const offset = args.offset ?? 0;
      return { sessions: sessions.slice(offset, offset + (args.limit ?? DEFAULT_LIST_LIMIT)) };
    }),
  );

  server.registerTool(
    'session_delete',
    {
      title: 'Delete a session',
      description: 'Tombstones a session with its transcript: it disappears from reads, but stays in the replayable history.',
      inputSchema: sessionInputs.delete,
      outputSchema: outputs.session,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      assertWritable(args.sessionId);
      return { session: await provider.sessions.delete(args.sessionId) };
    }),
  );
}
