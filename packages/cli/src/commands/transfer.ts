/**
 * `agentstate export` and `import`: the event log as JSON Lines, so a state
 * moves between machines and backends. An export ends with a trailer (event
 * count and SHA-256 of the event lines: core's export format), so a cut or edited
 * file is refused. Import builds a new database through the event path and
 * gives it the target's name only when everything checked out (see
 * `import.ts`); `--out` takes its name the same way, never replacing a file
 * without `--force`, and never the database itself.
 */
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import type { Command } from 'commander';
import { STATE_STREAM, exportLog } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { CliCommand, show } from '../context.js';
import { withDatabase } from '../database.js';
import { UserError } from '../errors.js';
import { importInto } from '../import.js';
import { inCwd, io } from '../io.js';
import { count } from '../output.js';
import { startProgress } from '../progress.js';
import { SIDE_SUFFIXES, createExclusive, makeInPlace, refuseUnwritableOutput } from '../temporary.js';
import { occupied } from '@agentstate/sqlite';

async function write(stream: Writable, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/** Refuses an --out that is the database or one of its files: replacing it would destroy the state being exported. */
function refuseDatabaseAsOut(out: string, dbPath: string): void {
  const target = inCwd(out);
  if ([dbPath, ...SIDE_SUFFIXES.map((s) => `${dbPath}${s}`)].includes(target)) {
    throw new UserError(`--out ${out} is the database being exported (or one of its files); choose another file`);
  }
}

/** Writes the log of the database at `dbPath` to `sink` as JSON Lines, with a progress bar unless `quiet`; the number of events. */
function exportTo(dbPath: string, sink: Writable, quiet: boolean): Promise<number> {
  return withDatabase(dbPath, { readonly: true }, async (db) => {
    const head = await db.log.head(STATE_STREAM);
    const progress = startProgress('exporting', head, quiet);
    try {
      return (await exportLog(db.log, (chunk) => write(sink, chunk), { upTo: head, onProgress: (n) => progress.update(n) })).events;
    } finally {
      progress.stop();
    }
  });
}

/** The `export` command. */
function exportCommand(): Command {
  return new CliCommand('export')
    .description(SUMMARIES.export)
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .option('--force', 'replace --out if it exists')
    .run(async (ctx, { out, force }: { out?: string; force?: boolean }) => {
      if (out === undefined) return exportTo(ctx.dbPath, io().stdout, true);
      refuseDatabaseAsOut(out, ctx.dbPath);
      refuseUnwritableOutput(out);
      if (occupied(inCwd(out)) && !force) throw new UserError(`${out} exists (pass --force to replace it)`);
      const started = performance.now();
      const fill = async (partial: string): Promise<number> => {
        const sink = createExclusive(partial, out);
        try {
          const events = await exportTo(ctx.dbPath, sink, ctx.json);
          sink.end();
          await once(sink, 'finish');
          return events;
        } catch (error) {
          sink.destroy();
          throw error;
        }
      };
      // --force asked for the replacement; without it, a file that appeared meanwhile is kept.
      const events = await makeInPlace(inCwd(out), out, 'exporting', fill, { replace: force });
      const report = { out, events, seconds: (performance.now() - started) / 1000 };
      show(ctx, report, `exported ${count(report.events)} events to ${out} in ${report.seconds.toFixed(2)} s`);
    });
}

/** The `import` command. */
function importCommand(): Command {
  return new CliCommand('import')
    .description(SUMMARIES.import)
    .argument('<file>', 'the export to read, or - for stdin')
    .option('--allow-untrailed', 'accept an export without a trailer line (made before trailers existed), after the same checks')
    .run(async (ctx, file: string, opts: { allowUntrailed?: boolean }) => {
      const report = await importInto(file, ctx.dbPath, { allowUntrailed: opts.allowUntrailed === true, quiet: ctx.json });
      show(ctx, report, `imported ${count(report.events)} events into ${report.db} in ${report.seconds.toFixed(2)} s (snapshot sha256 ${report.sha256})`);
    });
}

/** The transfer commands. */
export function transferCommands(): Command[] {
  return [exportCommand(), importCommand()];
}
