/** `agentstate sessions`: list, show a transcript, create, append a turn, delete. */
import { Command } from 'commander';
import type { Session, Turn } from '@agentstate/core';
import { TURN_ROLES, createSessionInputSchema } from '@agentstate/core';
import { parseInput } from '@agentstate/core/backend';
import { SUMMARIES } from '../command-list.js';
import { contextOf } from '../context.js';
import { withDatabase } from '../database.js';
import type { Column } from '../output.js';
import { count, print, printFields, printJson, printNextCursor, printTable, shortTime } from '../output.js';
import { nonNegativeInt, oneOf, textFromFlags } from '../parse.js';

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

/** The `sessions` command group. */
export function sessionsCommand(): Command {
  const group = new Command('sessions').description(SUMMARIES.sessions);

  group
    .command('list')
    .description('list live sessions, oldest first')
    .option('--limit <n>', 'at most this many', nonNegativeInt)
    .option('--offset <n>', 'skip this many first', nonNegativeInt)
    .option('--cursor <cursor>', 'resume after the page that printed this cursor (same other options)')
    .action(async (opts: { limit?: number; offset?: number; cursor?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const sessions = await withDatabase(ctx.dbPath, { readonly: true }, (db) =>
        db.sessions.list({ limit: opts.limit, offset: opts.offset, cursor: opts.cursor }),
      );
      if (ctx.json) printJson(sessions);
      else printTable(sessionColumns, sessions, '(no sessions)');
      printNextCursor(sessions.nextCursor, ctx.json);
    });

  group
    .command('show')
    .description('show a session and its transcript in seq order')
    .argument('<id>', 'session id')
    .option('--after-seq <n>', 'only turns with a greater seq', nonNegativeInt)
    .option('--limit <n>', 'at most this many turns', nonNegativeInt)
    .option('--cursor <cursor>', 'resume after the page that printed this cursor (same other options)')
    .action(async (id: string, opts: { afterSeq?: number; limit?: number; cursor?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { session, turns } = await withDatabase(ctx.dbPath, { readonly: true }, async (db) => ({
        session: await db.sessions.get(id),
        turns: await db.sessions.turns(id, { afterSeq: opts.afterSeq, limit: opts.limit, cursor: opts.cursor }),
      }));
      if (ctx.json) {
        printJson({ session, turns, nextCursor: turns.nextCursor });
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
      printNextCursor(turns.nextCursor, false);
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

  return group;
}
