/** Session tools: create, append a turn, read a transcript, list, delete. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Scope, Session } from '@agentstate/core';
import { NotFoundError, sameScope } from '@agentstate/core';
import { compareSessions } from '@agentstate/core/backend';
import { outputs, sessionInputs } from '../schemas.js';
import { hashScope, legacySessionScope } from '../session-scope.js';
import { CLOSED_WORLD, answer, type ToolContext } from './context.js';

/** The default number of sessions a listing returns. */
const DEFAULT_LIST_LIMIT = 20;

/**
 * Checks a live session against the scope rules, `write` or read: by its
 * scope, or, for a session of the old server, by the hashed scope its id
 * encodes (unreachable from a server bound to a path no old server had).
 */
function assertSessionAccess(ctx: ToolContext, session: Session, write: boolean): void {
  const legacy = legacySessionScope(session);
  if (legacy === undefined) {
    if (write) ctx.policy.assertWritable('session', session.id, session.scope);
    else ctx.policy.assertReadable('session', session.id, session.scope);
    return;
  }
  if (!ctx.legacySessionPolicy) throw new NotFoundError('session', session.id);
  if (write) ctx.legacySessionPolicy.assertWritable('session', session.id, legacy);
  else ctx.legacySessionPolicy.assertReadable('session', session.id, legacy);
}

/** The live session `id`, when this server may read it (else `NotFoundError`). */
export async function readableSession(ctx: ToolContext, id: string): Promise<Session> {
  const session = await ctx.provider.sessions.get(id);
  assertSessionAccess(ctx, session, false);
  return session;
}

/** Live sessions in exactly `scope`, old-server sessions whose id encodes it included, oldest first. */
export async function sessionsIn(ctx: ToolContext, scope: Scope): Promise<Session[]> {
  const own = (await ctx.provider.sessions.list({ scope })).filter((s) => legacySessionScope(s) === undefined);
  const hashed = hashScope(scope);
  if (hashed === undefined || hashed.length === 0) return own;
  const old = (await ctx.provider.sessions.list({ scope: [] })).filter((s) => {
    const legacy = legacySessionScope(s);
    return legacy !== undefined && sameScope(legacy, hashed);
  });
  return [...own, ...old].sort(compareSessions);
}

/** Registers the session tools on `server`. */
export function registerSessionTools(server: McpServer, ctx: ToolContext): void {
  const { provider, policy } = ctx;
  const assertWritable = async (id: string): Promise<void> => assertSessionAccess(ctx, await provider.sessions.get(id), true);

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
      return { session: await provider.sessions.create({ id: ctx.ids.next(), title: args.title, model: args.model, scope: policy.target(args.scope) }) };
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
      await assertWritable(args.sessionId);
      return { turn: await provider.sessions.appendTurn({ sessionId: args.sessionId, role: args.role, content: args.content }) };
    }),
  );

  server.registerTool(
    'session_read',
    {
      title: 'Read a transcript',
      description: 'Reads a session and its transcript in order. Use afterSeq and limit to page through long ones.',
      inputSchema: sessionInputs.read,
      outputSchema: outputs.transcript,
      annotations: { readOnlyHint: true, idempotentHint: true, ...CLOSED_WORLD },
    },
    answer(async (args) => {
      const session = await readableSession(ctx, args.sessionId);
      const turns = await provider.sessions.turns(args.sessionId, { afterSeq: args.afterSeq, limit: args.limit });
      return { session, turns };
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
      await assertWritable(args.sessionId);
      return { session: await provider.sessions.delete(args.sessionId) };
    }),
  );
}
