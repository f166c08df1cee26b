/** `agentstate diff --from --to`: what was created, changed and deleted between two points of the log. */
import type { Command } from 'commander';
import type { RecordDiff, StateDiff } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { CliCommand, show } from '../context.js';
import { parsePoint } from '@agentstate/open';
import { withDatabase } from '../database.js';
import { oneLine, print, shortTime, truncate } from '../output.js';

type Kind = Exclude<keyof StateDiff, 'from' | 'to'>;
const KINDS: readonly Kind[] = ['sessions', 'turns', 'skills', 'memory', 'checkpoints'];

/** What a line shows of a record: its most telling text. */
function label(record: object): string {
  const r = record as { content?: string; title?: string; slug?: string; threadId?: string };
  return truncate(oneLine(r.content ?? r.slug ?? r.title ?? r.threadId ?? ''), 60);
}

function printKind(kind: Kind, diff: RecordDiff<{ id: string }>): void {
  for (const r of diff.created) print(`+ ${kind} ${r.id} ${label(r)}`.trimEnd());
  for (const c of diff.changed) print(`~ ${kind} ${c.after.id} ${label(c.after)}`.trimEnd());
  for (const r of diff.deleted) print(`- ${kind} ${r.id} ${label(r)}`.trimEnd());
}

/** The `diff` command. */
export function diffCommand(): Command {
  return new CliCommand('diff')
    .description(SUMMARIES.diff)
    .requiredOption('--from <point>', 'a seq of the log, or an ISO-8601 instant (the last event at or before it)')
    .option('--to <point>', 'a seq or an instant (default: the head of the log)')
    .run(async (ctx, opts: { from: string; to?: string }) => {
      const diff = await withDatabase(ctx.dbPath, { readonly: true }, async (db) =>
        db.diff({ from: parsePoint(opts.from), to: opts.to === undefined ? { seq: await db.log.head('state') } : parsePoint(opts.to) }),
      );
      show(ctx, diff, () => {
        print(`from seq ${diff.from.seq} (${shortTime(diff.from.time)}) to seq ${diff.to.seq} (${shortTime(diff.to.time)})`);
        for (const kind of KINDS) printKind(kind, diff[kind]);
        const total = KINDS.reduce((n, k) => n + diff[k].created.length + diff[k].changed.length + diff[k].deleted.length, 0);
        if (total === 0) print('(no changes)');
      });
    });
}
