/** `agentstate memory|sessions|skills history <id>`: every version of one record, from the log. */
import { Command } from 'commander';
import type { HistoryKind, RecordVersion } from '@agentstate/core';
import { contextOf } from '../context.js';
import { withDatabase } from '../database.js';
import type { Column } from '../output.js';
import { printJson, printTable, shortTime } from '../output.js';

/** What a version's record says in one cell: its text, or that a purge erased it. */
function summary(v: RecordVersion): string {
  const text = v.kind === 'session' ? v.record.title : v.kind === 'skill' ? `${v.record.slug} v${v.record.version}` : v.record.content;
  return `${v.record.deleted ? '(deleted) ' : ''}${text}`;
}

const columns: Column<RecordVersion>[] = [
  { header: 'seq', cell: (v) => v.seq, align: 'right' },
  { header: 'time', cell: (v) => shortTime(v.time) },
  { header: 'event', cell: (v) => v.type },
  { header: 'kind', cell: (v) => v.kind },
  { header: 'writer', cell: (v) => v.originInstanceId ?? v.record.lastWriterId, max: 36 },
  { header: 'actor', cell: (v) => v.actor ?? '', max: 24 },
  { header: 'erased by', cell: (v) => (v.erasedBy === undefined ? '' : `#${v.erasedBy}`) },
  { header: 'record', cell: summary, max: 60 },
];

/** The `history` subcommand of a record group: `noun` names the record in the help. */
export function historyCommand(noun: string, kinds: readonly HistoryKind[]): Command {
  return new Command('history')
    .description(`every version of a ${noun} from the log, oldest first (seq, time, event, writer, actor, the record as that event left it)`)
    .argument('<id>', `${noun} id`)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const versions = (await withDatabase(ctx.dbPath, { readonly: true }, (db) => db.history(id))).filter((v) => kinds.includes(v.kind));
      if (ctx.json) printJson(versions);
      else printTable(columns, versions, `(no history for ${id})`);
    });
}
