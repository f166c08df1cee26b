/** Session tools: create, append a turn, read a transcript, the context for the next model call, compact, remove the last turn, replace the suffix, list, search, delete. */
import type { Session } from '@agentstate/core';
import { pageSessions } from '@agentstate/core';
import { outputs, sessionInputs } from '../schemas.js';
import { ScopeDeniedError } from '../scope-policy.js';
import { operationSessionUuid } from '../operation.js';
import { defineTool, deleteOnce, type ToolContext } from './context.js';

/** The default number of sessions a listing returns. */
const DEFAULT_LIST_LIMIT = 20;

/** The live session `id`, when this server may read it (else `NotFoundError`). */
export async function readableSession(ctx: ToolContext, id: string): Promise<Session> {
  const session = await ctx.provider.sessions.get(id);
  ctx.policy.assertReadable('session', id, session.scope);
  return session;
}

/** Whether a read includes the target's descendants: only on a server whose operator allowed subscopes. */
function includeDescendants(ctx: ToolContext, requested: boolean | undefined): boolean {
  if (requested === true && !ctx.policy.allowSubscopes) {
    throw new ScopeDeniedError('includeDescendants: this server does not read scopes under its own (the operator did not allow subscopes)');
  }
  return requested ?? false;
}

/** Throws unless this server may change the live session `id`. */
async function assertWritable(ctx: ToolContext, id: string): Promise<void> {
  ctx.policy.assertWritable('session', id, (await ctx.provider.sessions.get(id)).scope);
}

/** The session tools, by name. */
export const sessionTools = {
  session_create: defineTool({
    title: 'Create a session',
    description: "Starts a durable conversation in this server's scope. Append its turns with session_append_turn; resume it later with session_read.",
    input: sessionInputs.create,
    output: outputs.session,
    effect: 'write',
    async run(input, view, ctx) {
      const id = input.operationId === undefined ? ctx.ids.next() : operationSessionUuid(input.operationId);
      return { session: view.session(await ctx.provider.sessions.create({ id, ...input, scope: ctx.policy.target(input.scope) })) };
    },
  }),

  session_append_turn: defineTool({
    title: 'Append a turn',
    description:
      "Appends one turn (user, assistant, tool or system) to a session's transcript, as text, structured parts (reasoning, tool calls and results, files, data) or both. Turns are numbered in order of arrival.",
    input: sessionInputs.appendTurn,
    output: outputs.turn,
    effect: 'write',
    async run(input, view, ctx) {
      await assertWritable(ctx, input.sessionId);
      return { turn: view.turn(await ctx.provider.sessions.appendTurn(input)) };
    },
  }),

  session_read: defineTool({
    title: 'Read a transcript',
    description:
      'Reads a session and its transcript in order, with every part of each turn. Use limit and the returned nextCursor (or afterSeq) to page through long ones, or last for the newest turns.',
    input: sessionInputs.read,
    output: outputs.transcript,
    effect: 'read',
    async run({ sessionId, ...options }, view, ctx) {
      const session = await readableSession(ctx, sessionId);
      const turns = await ctx.provider.sessions.turns(sessionId, options);
      return { session: view.session(session), turns: turns.map(view.turn), nextCursor: turns.nextCursor };
    },
  }),

  session_context: defineTool({
    title: 'Get the context for the next model call',
    description:
      'Assembles what to send a model next from a session: the newest turns that fit maxTokens, oldest first, a tool call never apart from its result, ' +
      "each with its token count; first the working memory of the session's scope, then, with recall, the memories of that scope recalled for its last user turn.",
    input: sessionInputs.context,
    output: outputs.context,
    effect: 'read',
    async run({ sessionId, maxTokens, recall, working }, view, ctx) {
      await readableSession(ctx, sessionId);
      const window = await ctx.provider.sessions.context(sessionId, {
        maxTokens,
        ...(recall === undefined ? {} : { recall: { limit: recall } }),
        ...(working === undefined ? {} : { working }),
      });
      const entries = window.entries.map((e) =>
        e.kind === 'turn' ? { ...e, turn: view.turn(e.turn) } : e.kind === 'summary' ? e : { ...e, memory: view.memory(e.memory) },
      );
      return { ...window, entries };
    },
  }),

  session_compact: defineTool({
    title: 'Compact a session',
    description:
      'Writes a summary of a session through one of its turns: the context for the next model call then sends the summary in place of the turns it covers. ' +
      'The transcript stays whole (history, search and export still see every turn); a later summary replaces an earlier one.',
    input: sessionInputs.compact,
    output: outputs.session,
    effect: 'write',
    async run({ sessionId, ...input }, view, ctx) {
      await assertWritable(ctx, sessionId);
      return { session: view.session(await ctx.provider.sessions.compact(sessionId, input)) };
    },
  }),

  session_update: defineTool({
    title: 'Update a session',
    description:
      "Changes a session's title, metadata or scope: only the given fields change, and the earlier version stays in the replayable history. The transcript is untouched.",
    input: sessionInputs.update,
    output: outputs.session,
    effect: 'write',
    async run({ sessionId, scope, expectedSyncVersion, ...patch }, view, ctx) {
      await assertWritable(ctx, sessionId);
      // Only a scope the caller names moves the session, and only within the server's own.
      const moved = scope === undefined ? {} : { scope: ctx.policy.target(scope) };
      return { session: view.session(await ctx.provider.sessions.update(sessionId, { ...patch, ...moved, syncVersion: expectedSyncVersion })) };
    },
  }),

  session_remove_last_turn: defineTool({
    title: 'Remove the last turn',
    description: "Removes the newest turn of a session's transcript (to undo it). It stays in the replayable history; its number is never used again.",
    input: sessionInputs.removeLastTurn,
    output: outputs.turn,
    effect: 'remove',
    async run(args, view, ctx) {
      await assertWritable(ctx, args.sessionId);
      return { turn: view.turn(await ctx.provider.sessions.removeLastTurn(args.sessionId, { operationId: args.operationId })) };
    },
  }),

  session_replace_suffix: defineTool({
    title: 'Replace the newest turns',
    description:
      'Atomically replaces the turns the transcript ends with (expected, by id) by new turns: regenerate an answer, rewrite a step, or (expected empty) append several turns at once. ' +
      'If the transcript no longer ends with exactly those turns, nothing changes and a conflict is reported.',
    input: sessionInputs.replaceSuffix,
    output: outputs.turns,
    effect: 'remove',
    async run({ sessionId, ...input }, view, ctx) {
      await assertWritable(ctx, sessionId);
      return { turns: (await ctx.provider.sessions.replaceSuffix(sessionId, input)).map(view.turn) };
    },
  }),

  session_list: defineTool({
    title: 'List sessions',
    description:
      "Lists the sessions of this server's scope (with includeDescendants, of the scopes under it too), oldest first (as the library and the CLI list them) unless asked otherwise. " +
      'Pass the returned nextCursor as cursor, with the same arguments, for the next page.',
    input: sessionInputs.list,
    output: outputs.sessions,
    effect: 'read',
    async run(args, view, ctx) {
      const scope = ctx.policy.target(args.scope);
      const descendants = includeDescendants(ctx, args.includeDescendants);
      const page = pageSessions(
        await ctx.provider.sessions.list({ scope, includeDescendants: descendants }),
        { method: 'mcp.session_list', query: { scope, includeDescendants: descendants } },
        { order: args.order, offset: args.offset, limit: args.limit ?? DEFAULT_LIST_LIMIT, cursor: args.cursor },
      );
      return { sessions: page.map(view.session), nextCursor: page.nextCursor };
    },
  }),

  search_sessions: defineTool({
    title: 'Search transcripts',
    description:
      "Finds turns of this server's sessions (with includeDescendants, of the scopes under it too; or of one session) by their text, " +
      'as recall finds memory: lexical, semantic or hybrid. Each hit carries its session and neighbouring turns. ' +
      'Pass the returned nextCursor as cursor, with the same arguments, for the next page.',
    input: sessionInputs.search,
    output: outputs.turnHits,
    effect: 'read',
    async run({ scope, includeDescendants: descendantsArg, sessionId, ...rest }, view, ctx) {
      // One session: checked like session_read; a scope the call names narrows it further.
      const inScope = { scope: ctx.policy.target(scope), includeDescendants: includeDescendants(ctx, descendantsArg) };
      const narrowed = scope !== undefined || descendantsArg !== undefined;
      const where = sessionId === undefined ? inScope : { sessionId: (await readableSession(ctx, sessionId)).id, ...(narrowed ? inScope : {}) };
      const hits = await ctx.provider.sessions.search({ ...rest, ...where });
      return { hits: hits.map(view.turnHit), nextCursor: hits.nextCursor };
    },
  }),

  session_delete: defineTool({
    title: 'Delete a session',
    description:
      'Tombstones a session with its transcript: it disappears from reads, but stays in the replayable history. Deleting a session that is already a tombstone answers with that tombstone; an id that never existed is not_found.',
    input: sessionInputs.delete,
    output: outputs.session,
    effect: 'delete',
    async run(args, view, ctx) {
      return { session: view.session(await deleteOnce(ctx, 'session', ctx.provider.sessions, args.sessionId, args.operationId)) };
    },
  }),
};
