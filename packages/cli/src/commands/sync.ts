/** `agentstate sync <a> <b>`: two SQLite files exchange what each lacks (docs/contract.md §12). */
import { sync } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { CliCommand, show } from '../context.js';
import { openDatabase, sqliteOnly } from '../database.js';
import { inCwd } from '../io.js';
import { positiveInt } from '../parse.js';
import { count } from '../output.js';
import { startProgress } from '../progress.js';

/** The `sync` command. */
export function syncCommand(): CliCommand {
  return new CliCommand('sync')
    .description(SUMMARIES.sync)
    .argument('<a>', 'a database file')
    .argument('<b>', 'another database file, created when missing: a new replica of <a>')
    .option('--batch-size <n>', 'events per batch, each one transaction', positiveInt, 1_000)
    .run(async (ctx, a: string, b: string, opts: { batchSize: number }) => {
      const started = performance.now();
      const first = sqliteOnly(await openDatabase(inCwd(a)), 'sync');
      try {
        const second = sqliteOnly(await openDatabase(inCwd(b), { create: true }), 'sync');
        try {
          const progress = startProgress('syncing', 0, ctx.json);
          const summary = await sync(first, second, { batchSize: opts.batchSize, onProgress: (s) => progress.update(s.toA + s.toB) }).finally(() =>
            progress.stop(),
          );
          const report = { a, b, ...summary, seconds: (performance.now() - started) / 1000 };
          show(
            ctx,
            report,
            `synced ${a} and ${b}: ${counted(summary.toA, 'event')} into ${a}, ${counted(summary.toB, 'event')} into ${b}, in ${counted(summary.batches, 'batch')} (${report.seconds.toFixed(2)} s)`,
          );
        } finally {
          await second.close();
        }
      } finally {
        await first.close();
      }
    });
}

/** `n` and its noun, plural unless one: `1 event`, `2 batches`. */
const counted = (n: number, noun: string): string => `${count(n)} ${n === 1 ? noun : noun.endsWith('h') ? `${noun}es` : `${noun}s`}`;
