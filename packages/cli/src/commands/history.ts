/** `agentstate memory|sessions|skills history <id>`: every version of one record, from the log. */
import type { Command } from 'commander';
import type { HistoryKind, RecordVersion } from '@agentstate/core';
import { EventTypes, readStateEvents } from '@agentstate/core';
import { CliCommand, show, withScopeFlags } from '../context.js';
import type { Database } from '../database.js';
import { withDatabase } from '../database.js';
import { transcriptChange } from '../events.js';
import type { Column } from '../output.js';
import { type ScopeFlags, scopeFrom } from '../parse.js';
import { printTable, shortTime } from '../output.js';

/** The events that change a session's transcript: the version they leave is the session, but what happened is the turn. */
const TRANSCRIPT_EVENTS: ReadonlySet<string> = new Set([EventTypes.TurnAppended, EventTypes.TurnsRemoved, EventTypes.SuffixReplaced]);

/** A version beside what its event did to the transcript, when it did. */
interface Row {
  version: RecordVersion;
  change: string | undefined;
}

/** What a version's record says in one cell: the turn its event appended or removed, else its text; marked when it is a tombstone or lost a merge. */
function summary({ version: v, change }: Row): string {
  const text = change ?? (v.kind === 'session' ? v.record.title : v.kind === 'skill' ? `${v.record.slug} v${v.record.version}` : v.record.content);
  return `${v.conflict ? '(conflict) ' : ''}${v.record.deleted ? '(deleted) ' : ''}${text}`;
}

const columns: Column<Row>[] = [
  { header: 'seq', cell: ({ version: v }) => v.seq, align: 'right' },
  { header: 'time', cell: ({ version: v }) => shortTime(v.time) },
  { header: 'event', cell: ({ version: v }) => v.type },
  { header: 'kind', cell: ({ version: v }) => v.kind },
  { header: 'writer', cell: ({ version: v }) => v.originInstanceId ?? v.record.lastWriterId, max: 36 },
  { header: 'actor', cell: ({ version: v }) => v.actor ?? '', max: 24 },
  { header: 'erased by', cell: ({ version: v }) => (v.erasedBy === undefined ? '' : `#${v.erasedBy}`) },
  { header: 'record', cell: summary, max: 60 },
];

/** Each version with what its event did to the transcript, read from the log for the versions a transcript event left. */
async function rows(db: Database, versions: readonly RecordVersion[]): Promise<Row[]> {
  const seqs = versions.filter((v) => v.kind === 'session' && TRANSCRIPT_EVENTS.has(v.type)).map((v) => v.seq);
  const events = new Map((await readStateEvents(db.log, seqs)).map((e) => [e.seq, e]));
  return versions.map((version) => {
    const event = events.get(version.seq);
    return { version, change: event === undefined ? undefined : transcriptChange(event) };
  });
}

/**
 * The `history` subcommand of a record group: `noun` names the record in the help. With `slugScope` (skills: what
 * `--scope` means), a slug is taken too, resolved as `skills show` resolves it, and one that names no skill is
 * refused as there, rather than answered with no history.
 */
export function historyCommand(noun: string, kinds: readonly HistoryKind[], slugScope?: string): Command {
  const command = new CliCommand('history')
    .description(
      `every version of a ${noun} from the log, oldest first (seq, time, event, writer, actor, the record as that event left it; for a session, the turn appended or removed)`,
    )
    .argument(slugScope ? '<id-or-slug>' : '<id>', slugScope ? `${noun} id or slug` : `${noun} id`);
  return (slugScope ? withScopeFlags(command, slugScope) : command).run(async (ctx, key: string, opts: ScopeFlags) => {
    const { versions, table } = await withDatabase(ctx.dbPath, { readonly: true }, async (db) => {
      const of = async (id: string) => (await db.history(id)).filter((v) => kinds.includes(v.kind));
      let versions = await of(key);
      // A slug names no event: its skill's id does.
      if (versions.length === 0 && slugScope) versions = await of((await db.skills.getAny(key, { scope: scopeFrom(opts) })).id);
      return { versions, table: ctx.json ? [] : await rows(db, versions) };
    });
    show(ctx, versions, () => printTable(columns, table, `(no history for ${key})`));
  });
}
