/**
 * `agentstate sessions`: list, show a transcript, create, append a turn,
 * remove the last turn, clear, replace the transcript's suffix, delete, compact,
 * and the context window for the next model call.
 */
import type { AppendTurnInput, SearchSessionsOptions, Session, Turn, TurnRole } from '@agentstate/core';
import {
  RECALL_MODES,
  RECALL_ORDERS,
  TURN_ROLES,
  appendTurnInputSchema,
  compactSessionInputSchema,
  createSessionInputSchema,
  describeScope,
  replaceSuffixInputSchema,
  searchSessionsOptionsSchema,
  parseInput,
  updateSessionInputSchema,
} from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { historyCommand } from './history.js';
import { CliCommand, show, sub, withReadScope, withScopeFlags } from '../context.js';
import { withDatabase, type Reader, withReader } from '../database.js';
import type { Column } from '../output.js';
import { count, print, printFields, printNextCursor, printTable, shortTime } from '../output.js';
import type { OperationFlags, ScopeFlags, ScopeReadFlags } from '../parse.js';
import { collect, nonNegativeInt, oneOf, parseJson, parseJsonObject, positiveInt, scopeFrom, scopeRead, textFromFlags, unitInterval } from '../parse.js';
import { printContext, printHits, printTranscript } from '../transcript.js';

export const sessionColumns: Column<Session>[] = [
  { header: 'id', cell: (s) => s.id },
  { header: 'created', cell: (s) => shortTime(s.createdAt) },
  { header: 'updated', cell: (s) => shortTime(s.updatedAt) },
  { header: 'scope', cell: (s) => describeScope(s.scope), max: 32 },
  { header: 'model', cell: (s) => s.model, max: 24 },
  { header: 'title', cell: (s) => s.title, max: 60 },
];

/** The `--metadata` flag's object, or undefined when absent. */
function metadataFrom(text: string | undefined): Record<string, unknown> | undefined {
  return text === undefined ? undefined : parseJsonObject(text, '--metadata');
}

/** What a transcript operation removed or added. */
function changed(verb: string, sessionId: string, turns: readonly Turn[]): string {
  return turns.length === 0 ? `${verb} no turns of session ${sessionId}` : `${verb} ${turns.map((t) => `#${t.seq}`).join(', ')} of session ${sessionId}`;
}

/** The flags of `sessions append`: the input's fields they give as they are, and the others. */
type AppendFlags = OperationFlags & Pick<AppendTurnInput, 'role' | 'content'> & { file?: string; parts?: string; metadata?: string };

/** Flags of `sessions search`: the options they give as they are, and the others. */
type SearchFlags = ScopeReadFlags &
  Pick<SearchSessionsOptions, 'cursor' | 'mode' | 'order' | 'limit' | 'minScore' | 'match' | 'context'> & { session?: string; role?: string[]; at?: string };

/** Flags of `sessions compact`: `--through` a seq (digits) or a turn id, the summary inline or from `--file`. */
type CompactFlags = OperationFlags & { through: string; summary?: string; file?: string; model?: string; tokens?: number };

/** The `sessions` command group. */
export function sessionsCommand(): CliCommand {
  const group = new CliCommand('sessions').description(SUMMARIES.sessions);

  withReadScope(sub(group, 'list', 'at'), 'sessions')
    .description('list live sessions, oldest first')
    .option('--offset <n>', 'skip this many first', nonNegativeInt)
    .flags('limit', 'cursor')
    .run(async (ctx, { at, scope, descendants, ...page }: ScopeReadFlags & { limit?: number; offset?: number; cursor?: string; at?: string }) => {
      const options = { ...page, ...scopeRead({ scope, descendants }) };
      const sessions = await withReader(ctx.dbPath, at, {}, (db) => db.sessions.list(options));
      show(ctx, sessions, () => printTable(sessionColumns, sessions, '(no sessions)'));
    });

  sub(group, 'show', 'at')
    .description('show a session and its transcript in seq order')
    .argument('<id>', 'session id')
    .option('--after-seq <n>', 'only turns with a greater seq', nonNegativeInt)
    .option('--limit <n>', 'at most this many turns (default: all)', positiveInt)
    .option('--last <n>', 'only the newest n turns (not with --after-seq or --limit)', positiveInt)
    .flags('cursor')
    .run(async (ctx, id: string, { at, ...options }: { afterSeq?: number; limit?: number; last?: number; cursor?: string; at?: string }) => {
      const { session, turns } = await withReader(ctx.dbPath, at, {}, async (db) => ({
        session: await db.sessions.get(id),
        turns: await db.sessions.turns(id, options),
      }));
      show(ctx, { session, turns, nextCursor: turns.nextCursor }, () => {
        printFields([
          ['session', session.id],
          ['title', session.title || '(untitled)'],
          ['model', session.model || '(none)'],
          ['scope', describeScope(session.scope)],
          ['created', shortTime(session.createdAt)],
          ['updated', shortTime(session.updatedAt)],
          ...(Object.keys(session.metadata).length > 0 ? [['metadata', JSON.stringify(session.metadata)] as [string, string]] : []),
          ['turns shown', count(turns.length)],
        ]);
        print();
        printTranscript(turns);
        printNextCursor(turns.nextCursor, false);
      });
    });

  sub(group, 'context', 'at')
    .description(
      'what to send a model next: the summary of `sessions compact` in place of the turns it covers, and the newest turns that fit --max-tokens (o200k tokens), a tool call never apart from its result',
    )
    .argument('<id>', 'session id')
    .requiredOption('--max-tokens <n>', 'the token budget', positiveInt)
    .option('--recall <n>', "first, up to n memories of the session's scope recalled for its last user turn", positiveInt)
    .run(async (ctx, id: string, { at, maxTokens, recall }: { maxTokens: number; recall?: number; at?: string }) => {
      // Recall may embed, as `memory recall` with a query does.
      const options = { embedder: recall === undefined ? ('none' as const) : ('static' as const) };
      const window = await withReader(ctx.dbPath, at, options, (db) =>
        db.sessions.context(id, { maxTokens, ...(recall === undefined ? {} : { recall: { limit: recall } }) }),
      );
      show(ctx, window, () => printContext(window));
    });

  sub(group, 'compact', 'operationId')
    .description('write a summary of a session through a turn: `sessions context` sends it in place of the turns it covers; the transcript stays whole')
    .argument('<id>', 'session id')
    .requiredOption('--through <turn>', 'the last turn the summary covers: its seq (digits) or its id')
    .option('--summary <text>', 'the summary')
    .option('--file <path>', 'read the summary from a file (- for stdin)')
    .option('--model <name>', 'who wrote the summary')
    .option('--tokens <n>', "the summary's token count, as its writer counted it", nonNegativeInt)
    .run(async (ctx, id: string, { summary, file, through, ...opts }: CompactFlags) => {
      const text = await textFromFlags(summary, file, 'summary');
      // Checked before the database is opened: a refused summary opens nothing.
      const input = parseInput(compactSessionInputSchema, { ...opts, summary: text, through: /^\d+$/.test(through) ? Number(through) : through });
      const session = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.compact(id, input));
      show(ctx, session, `compacted session ${session.id} through turn ${session.summary?.through}`);
    });

  withScopeFlags(sub(group, 'create', 'operationId'), 'the session lives in this scope (default: global)')
    .description('create a session and print its id')
    .option('--title <text>', 'title')
    .option('--model <name>', 'model the conversation runs on')
    .option('--id <id>', 'use this id (it must be unused)')
    .option('--metadata <json>', 'a JSON object stored with the session')
    .run(async (ctx, opts: ScopeFlags & OperationFlags & { title?: string; model?: string; id?: string; metadata?: string }) => {
      // Checked before the file is created: a refused write leaves nothing behind. The flags are the input's fields.
      const input = parseInput(createSessionInputSchema, { ...opts, scope: scopeFrom(opts), metadata: metadataFrom(opts.metadata) });
      const session = await withDatabase(ctx.dbPath, { create: true }, (db) => db.sessions.create(input));
      show(ctx, session, session.id);
    });

  withScopeFlags(sub(group, 'update', 'operationId'), 'move the session to this scope')
    .description("change a session's title, metadata or scope: only the given fields change, the transcript is untouched")
    .argument('<id>', 'session id')
    .option('--title <text>', 'the new title')
    .option('--metadata <json>', 'the new metadata, a JSON object (replaces the old)')
    .option('--sync-version <n>', 'only if the session is still at this syncVersion', nonNegativeInt)
    .run(async (ctx, id: string, opts: ScopeFlags & OperationFlags & { title?: string; metadata?: string; syncVersion?: number }) => {
      // Checked before the database is opened: a refused change opens nothing. The flags are the patch's fields.
      const patch = parseInput(updateSessionInputSchema, { ...opts, metadata: metadataFrom(opts.metadata), scope: scopeFrom(opts) });
      const session = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.update(id, patch));
      show(ctx, session, `updated session ${session.id} (syncVersion ${session.syncVersion})`);
    });

  sub(group, 'append', 'operationId')
    .description('append a turn to a session: its text from --content or --file (- for stdin), its structure from --parts, or both')
    .argument('<session-id>', 'session id')
    .option('--role <role>', `who speaks: ${TURN_ROLES.join(', ')}`, oneOf(TURN_ROLES), 'user')
    .option('--content <text>', 'the turn text')
    .option('--file <path>', 'read the turn text from a file, or - for stdin')
    .option('--parts <json>', 'the turn parts as a JSON array (text, reasoning, tool-call, tool-result, file, data)')
    .option('--metadata <json>', 'a JSON object stored with the turn')
    .run(async (ctx, sessionId: string, opts: AppendFlags) => {
      const content =
        opts.parts !== undefined && opts.content === undefined && opts.file === undefined
          ? undefined
          : await textFromFlags(opts.content, opts.file, 'turn content');
      const input: AppendTurnInput = { sessionId, role: opts.role, operationId: opts.operationId };
      if (content !== undefined) input.content = content;
      if (opts.parts !== undefined) input.parts = parseJson(opts.parts, '--parts') as AppendTurnInput['parts'];
      if (opts.metadata !== undefined) input.metadata = metadataFrom(opts.metadata);
      // Checked before the database is opened: a refused turn opens nothing.
      parseInput(appendTurnInputSchema, input);
      const turn = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.appendTurn(input));
      show(ctx, turn, `appended turn #${turn.seq} (${turn.role}) to session ${turn.sessionId}`);
    });

  sub(group, 'remove-last', 'operationId')
    .description('remove the newest turn of a session (its tombstone stays in the log)')
    .argument('<id>', 'session id')
    .run(async (ctx, id: string, opts: OperationFlags) => {
      const turn = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.removeLastTurn(id, opts));
      show(ctx, turn, changed('removed', id, [turn]));
    });

  sub(group, 'clear', 'operationId')
    .description('remove every turn of a session in one event (nothing when it has none)')
    .argument('<id>', 'session id')
    .run(async (ctx, id: string, opts: OperationFlags) => {
      const turns = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.clear(id, opts));
      show(ctx, turns, changed('removed', id, turns));
    });

  sub(group, 'replace-suffix', 'operationId')
    .description('atomically replace the newest turns, which must be exactly --expected, by the turns of --turns (a JSON array, or --turns-file)')
    .argument('<id>', 'session id')
    .option('--expected <ids>', 'the ids the transcript must end with, oldest first, comma-separated (empty: append)', '')
    .option('--turns <json>', 'the new turns: a JSON array of { role, content?, parts?, metadata?, id? }')
    .option('--turns-file <path>', 'read the new turns from a file, or - for stdin')
    .run(async (ctx, id: string, opts: OperationFlags & { expected: string; turns?: string; turnsFile?: string }) => {
      const turnsText = await textFromFlags(opts.turns, opts.turnsFile, 'new turns');
      const where = opts.turns !== undefined ? '--turns' : `--turns-file ${opts.turnsFile}`;
      const expected = opts.expected === '' ? [] : opts.expected.split(',').map((s) => s.trim());
      // Checked before the database is opened: refused input opens nothing.
      const input = parseInput(replaceSuffixInputSchema, { expected, turns: parseJson(turnsText, where), operationId: opts.operationId });
      const added = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.replaceSuffix(id, input));
      show(ctx, added, changed('added', id, added));
    });

  sub(group, 'delete', 'operationId')
    .description('delete a session (a tombstone stays in the log)')
    .argument('<id>', 'session id')
    .run(async (ctx, id: string, opts: OperationFlags) => {
      const session = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.delete(id, opts));
      show(ctx, session, `deleted session ${session.id}`);
    });

  withReadScope(sub(group, 'search', 'at'), 'turns of sessions')
    .description('search the turns of live sessions (lexical, semantic or hybrid, as memory recall), with the turns around each hit')
    .argument('[query]', 'what to look for; none lists the newest turns')
    .option('--session <id>', 'only this session')
    .option('--role <role>', `only turns of this role (repeatable): ${TURN_ROLES.join(', ')}`, collect)
    .option('--mode <mode>', `${RECALL_MODES.join(', ')} (default: hybrid with query text, else lexical)`, oneOf(RECALL_MODES))
    .option('--order <order>', `${RECALL_ORDERS.join(', ')}`, oneOf(RECALL_ORDERS))
    .option('--limit <n>', 'at most this many hits (default: 20)', positiveInt)
    .option('--min-score <x>', 'drop hits scoring below this (0…1, default 0: no cut)', unitInterval)
    .flags('match')
    .option('--context <n>', 'turns shown before and after each hit (default 1)', nonNegativeInt)
    .flags('cursor')
    .run(async (ctx, query: string | undefined, { scope, descendants, session, role, at, ...rest }: SearchFlags) => {
      const options: SearchSessionsOptions = {
        query,
        ...scopeRead({ scope, descendants }),
        sessionId: session,
        roles: role as TurnRole[] | undefined,
        ...rest,
      };
      parseInput(searchSessionsOptionsSchema, options);
      // Vectors of turns are derived on first use and stored: a search that may embed opens the file writable.
      const wantsVectors = rest.mode === undefined ? Boolean(query?.trim()) : rest.mode !== 'lexical';
      const embedder = wantsVectors ? 'static' : 'none';
      const search = (db: Reader) => db.sessions.search(options);
      const hits = await (at === undefined
        ? withDatabase(ctx.dbPath, { embedder, readonly: !wantsVectors }, search)
        : withReader(ctx.dbPath, at, { embedder }, search));
      show(ctx, hits, printHits);
    });

  group.addCommand(historyCommand('session or turn', ['session', 'turn']));

  return group;
}
