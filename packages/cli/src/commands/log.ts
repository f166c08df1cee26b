/** `agentstate log`: tail (and follow) and show the events of the `state` stream. */
import type { Command } from 'commander';
import type { Log, LogEvent } from '@agentstate/core';
import type { PostgresLog, Subscription } from '@agentstate/postgres';
import { EventTypes, STATE_STREAM } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { CliCommand } from '../context.js';
import { withLog } from '../database.js';
import { UserError } from '../errors.js';
import { eventLine } from '../events.js';
import { print, printJson } from '../output.js';
import { collect, nonNegativeInt, positiveInt } from '../parse.js';

const EVENT_TYPES: readonly string[] = Object.values(EventTypes);
const SCAN_BATCH = 5_000;

function typeFilter(types: readonly string[] | undefined): (e: LogEvent) => boolean {
  if (!types || types.length === 0) return () => true;
  for (const t of types) {
    if (!EVENT_TYPES.includes(t)) throw new UserError(`unknown event type ${JSON.stringify(t)} (known: ${EVENT_TYPES.join(', ')})`);
  }
  return (e) => types.includes(e.type);
}

function emit(events: readonly LogEvent[], json: boolean): void {
  if (events.length === 0) return;
  print(events.map((e) => (json ? JSON.stringify(e) : eventLine(e))).join('\n'));
}

/** The last `n` events that pass `keep`, scanning back from the head in batches. */
async function lastEvents(log: Log, n: number, keep: (e: LogEvent) => boolean): Promise<{ events: LogEvent[]; head: number }> {
  const head = await log.head(STATE_STREAM);
  const found: LogEvent[] = [];
  let end = head;
  while (end > 0 && found.length < n) {
    const from = Math.max(0, end - SCAN_BATCH);
    const batch = (await log.read({ stream: STATE_STREAM, afterSeq: from, limit: end - from })).filter(keep);
    found.unshift(...batch.slice(-(n - found.length)));
    end = from;
  }
  return { events: n === 0 ? [] : found, head };
}

/** Prints the events after `seq` as they commit, until interrupted: by subscription where the log has one, else by polling. */
async function follow(log: Log, seq: number, keep: (e: LogEvent) => boolean, json: boolean, intervalMs: number): Promise<void> {
  let stopped = false;
  let subscription: Subscription | undefined;
  const stop = (): void => {
    stopped = true;
    void subscription?.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // A PostgreSQL log follows the stream live (LISTEN/NOTIFY with catch-up reads).
  if ('subscribe' in log) {
    subscription = (log as PostgresLog).subscribe({ afterSeq: seq });
    for await (const event of subscription) emit([event].filter(keep), json);
    return;
  }
  while (!stopped) {
    const batch = await log.read({ stream: STATE_STREAM, afterSeq: seq, limit: SCAN_BATCH });
    if (batch.length > 0) {
      seq = batch[batch.length - 1]!.seq;
      emit(batch.filter(keep), json);
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The `log` command group. */
export function logCommand(): Command {
  const group = new CliCommand('log').description(SUMMARIES.log);

  group
    .command('tail')
    .description('show the last events, and with --follow keep printing new ones as another process writes them')
    .option('-n, --lines <n>', 'how many events', nonNegativeInt, 20)
    .option('--type <type>', 'only this event type (repeat for several)', collect)
    .option('-f, --follow', 'keep printing new events as they commit until interrupted (PostgreSQL: as notified; SQLite: by polling)')
    .option('--interval <ms>', 'how often --follow polls', positiveInt, 250)
    .run(async (ctx, opts: { lines: number; type?: string[]; follow?: boolean; interval: number }) => {
      const keep = typeFilter(opts.type);
      await withLog(ctx.dbPath, async (log) => {
        const { events, head } = await lastEvents(log, opts.lines, keep);
        emit(events, ctx.json);
        if (opts.follow) await follow(log, head, keep, ctx.json, opts.interval);
      });
    });

  group
    .command('show')
    .description('show one event in full, or the events of a seq range')
    .argument('[seq]', 'the seq of one event to show in full', positiveInt)
    .option('--from <seq>', 'first seq of the range', positiveInt, 1)
    .option('--to <seq>', 'last seq of the range (default: the head)', positiveInt)
    .option('--type <type>', 'only this event type (repeat for several)', collect)
    .option('--limit <n>', 'at most this many events (default: all)', positiveInt)
    .run(async (ctx, seq: number | undefined, opts: { from: number; to?: number; type?: string[]; limit?: number }) => {
      const keep = typeFilter(opts.type);
      if (opts.to !== undefined && opts.to < opts.from) throw new UserError(`--to ${opts.to} is before --from ${opts.from}`);
      await withLog(ctx.dbPath, async (log) => {
        if (seq !== undefined) {
          const [event] = await log.read({ stream: STATE_STREAM, afterSeq: seq - 1, limit: 1 });
          if (!event) throw new UserError(`no event #${seq}: the log's head is at ${await log.head(STATE_STREAM)}`);
          return ctx.json ? print(JSON.stringify(event)) : printJson(event);
        }
        const head = await log.head(STATE_STREAM);
        const to = Math.min(opts.to ?? head, head);
        const limit = opts.limit ?? Number.POSITIVE_INFINITY;
        let after = opts.from - 1;
        let shown = 0;
        while (after < to && shown < limit) {
          const batch = await log.read({ stream: STATE_STREAM, afterSeq: after, limit: Math.min(SCAN_BATCH, to - after) });
          if (batch.length === 0) break;
          after = batch[batch.length - 1]!.seq;
          const kept = batch.filter(keep).slice(0, limit - shown);
          shown += kept.length;
          emit(kept, ctx.json);
        }
        if (shown === 0 && !ctx.json) print('(no events in this range)');
      });
    });

  return group;
}
