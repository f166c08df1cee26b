/** `agentstate sessions`: list, show a transcript, create, append a turn, delete. */
import { Command } from 'commander';
import type { RecallMode, RecallOrder, SearchSessionsOptions, Session, Turn, TurnHit, TurnRole } from '@agentstate/core';
import { RECALL_MODES, RECALL_ORDERS, TURN_ROLES, createSessionInputSchema, searchSessionsOptionsSchema } from '@agentstate/core';
import { parseInput } from '@agentstate/core/backend';
import { SUMMARIES } from '../command-list.js';
import { contextOf } from '../context.js';
import { withDatabase } from '../database.js';
import { defaultEmbedder } from '../embedder.js';
import type { Column } from '../output.js';
import { count, print, printFields, printJson, printTable, shortTime } from '../output.js';
import { collect, nonNegativeInt, oneOf, positiveInt, textFromFlags, unitInterval } from '../parse.js';

export const sessionColumns: Column<Session>[] = [
  { header: 'id', cell: (s) => s.id },
  { header: 'created', cell: (s) => shortTime(s.createdAt) },
  { header: 'updated', cell: (s) => shortTime(s.updatedAt) },
  { header: 'model', cell: (s) => s.model, max: 24 },
  { header: 'title', cell: (s) => s.title, max: 60 },
];

/** Prints a transcript, one block per turn. */
export function printTranscript(turns: readonly Turn[]): void {
  if (turns.length === 0) {
    print('(no turns)');
    return;
  }
  print(turns.map((t) => `#${t.seq} ${t.role} · ${shortTime(t.createdAt)}\n${indent(t.content)}`).join('\n\n'));
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** Flags of `sessions search`. */
interface SearchFlags {
  session?: string;
  role?: string[];
  mode?: RecallMode;
  order?: RecallOrder;
  limit?: number;
  minScore?: number;
  match?: 'all' | 'any';
  context?: number;
}

/** Prints search hits: each turn with its session, score and the turns around it. */
function printHits(hits: readonly TurnHit[]): void {
  if (hits.length === 0) {
    print('(no turns found)');
    return;
  }
  const block = (t: Turn, mark: string): string => `${mark} #${t.seq} ${t.role} · ${shortTime(t.createdAt)}\n${indent(t.content)}`;
  print(
    hits
      .map((h) =>
        [
          `session ${h.session.id}${h.session.title ? ` (${h.session.title})` : ''} · score ${h.score.toFixed(3)}`,
          ...h.before.map((t) => block(t, ' ')),
          block(h.turn, '>'),
          ...h.after.map((t) => block(t, ' ')),
        ].join('\n'),
      )
      .join('\n\n'),
  );
}

/** The `sessions` command group. */
export function sessionsCommand(): Command {
  const group = new Command('sessions').description(SUMMARIES.sessions);

  group
    .command('list')
    .description('list live sessions, oldest first')
    .option('--limit <n>', 'at most this many', nonNegativeInt)
    .option('--offset <n>', 'skip this many first', nonNegativeInt)
    .action(async (opts: { limit?: number; offset?: number }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const sessions = await withDatabase(ctx.dbPath, { readonly: true }, (db) => db.sessions.list({ limit: opts.limit, offset: opts.offset }));
      if (ctx.json) printJson(sessions);
      else printTable(sessionColumns, sessions, '(no sessions)');
    });

  group
    .command('show')
    .description('show a session and its transcript in seq order')
    .argument('<id>', 'session id')
    .option('--after-seq <n>', 'only turns with a greater seq', nonNegativeInt)
    .option('--limit <n>', 'at most this many turns', nonNegativeInt)
    .action(async (id: string, opts: { afterSeq?: number; limit?: number }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { session, turns } = await withDatabase(ctx.dbPath, { readonly: true }, async (db) => ({
        session: await db.sessions.get(id),
        turns: await db.sessions.turns(id, { afterSeq: opts.afterSeq, limit: opts.limit }),
      }));
      if (ctx.json) {
        printJson({ session, turns });
        return;
      }
      printFields([
        ['session', session.id],
        ['title', session.title || '(untitled)'],
        ['model', session.model || '(none)'],
        ['created', session.createdAt],
        ['updated', session.updatedAt],
        ['turns shown', count(turns.length)],
      ]);
      print();
      printTranscript(turns);
    });

  group
    .command('create')
    .description('create a session and print its id')
    .option('--title <text>', 'title')
    .option('--model <name>', 'model the conversation runs on')
    .option('--id <id>', 'use this id (it must be unused)')
    .action(async (opts: { title?: string; model?: string; id?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      // Checked before the file is created: a refused write leaves nothing behind.
      const input = parseInput(createSessionInputSchema, opts);
      const session = await withDatabase(ctx.dbPath, { create: true }, (db) => db.sessions.create(input));
      if (ctx.json) printJson(session);
      else print(session.id);
    });

  group
    .command('append')
    .description('append a turn to a session; the content is --content, or --file (- for stdin)')
    .argument('<session-id>', 'session id')
    .option('--role <role>', `who speaks: ${TURN_ROLES.join(', ')}`, oneOf(TURN_ROLES), 'user')
    .option('--content <text>', 'the turn text')
    .option('--file <path>', 'read the turn text from a file, or - for stdin')
    .action(async (sessionId: string, opts: { role: (typeof TURN_ROLES)[number]; content?: string; file?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const content = textFromFlags(opts.content, opts.file, 'turn content');
      const turn = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.appendTurn({ sessionId, role: opts.role, content }));
      if (ctx.json) printJson(turn);
      else print(`appended turn #${turn.seq} (${turn.role}) to session ${turn.sessionId}`);
    });

  group
    .command('delete')
    .description('delete a session (a tombstone stays in the log)')
    .argument('<id>', 'session id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const session = await withDatabase(ctx.dbPath, {}, (db) => db.sessions.delete(id));
      if (ctx.json) printJson(session);
      else print(`deleted session ${session.id}`);
    });

  group
    .command('search')
    .description('search the turns of live sessions (lexical, semantic or hybrid, as memory recall), with the turns around each hit')
    .argument('[query]', 'what to look for; none lists the newest turns')
    .option('--session <id>', 'only this session')
    .option('--role <role>', `only turns of this role (repeatable): ${TURN_ROLES.join(', ')}`, collect)
    .option('--mode <mode>', `${RECALL_MODES.join(', ')} (default: hybrid with query text, else lexical)`, oneOf(RECALL_MODES))
    .option('--order <order>', `${RECALL_ORDERS.join(', ')}`, oneOf(RECALL_ORDERS))
    .option('--limit <n>', 'at most this many hits', positiveInt)
    .option('--min-score <x>', 'drop hits scoring below this (0…1)', unitInterval)
    .option('--match <how>', 'all or any query token must match', oneOf(['all', 'any'] as const))
    .option('--context <n>', 'turns shown before and after each hit (default 1)', nonNegativeInt)
    .action(async (query: string | undefined, opts: SearchFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      const options: SearchSessionsOptions = {
        query,
        sessionId: opts.session,
        roles: opts.role as TurnRole[] | undefined,
        mode: opts.mode,
        order: opts.order,
        limit: opts.limit,
        minScore: opts.minScore,
        match: opts.match,
        context: opts.context,
      };
      parseInput(searchSessionsOptionsSchema, options);
      // Vectors of turns are derived on first use and stored: a search that may embed opens the file writable.
      const wantsVectors = opts.mode === undefined ? Boolean(query?.trim()) : opts.mode !== 'lexical';
      const embedder = wantsVectors ? await defaultEmbedder() : undefined;
      const hits = await withDatabase(ctx.dbPath, { embedder, readonly: !wantsVectors }, (db) => db.sessions.search(options));
      if (ctx.json) printJson(hits);
      else printHits(hits);
    });

  return group;
}
