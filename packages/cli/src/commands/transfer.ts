/**
 * `agentstate export` and `import`: the event log as JSON Lines, so a state
 * moves between machines and backends. An export ends with a trailer (event
 * count and SHA-256 of the event lines: core's export format), so a cut or edited
 * file is refused. Import builds a new database through the event path and
 * gives it the target's name only when everything checked out (see
 * `import.ts`); `--out` takes its name the same way, never replacing a file
 * without `--force`, and never the database itself.
 */
import { renameSync } from 'node:fs';
import { mapFileError } from '@agentstate/sqlite';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { dirname } from 'node:path';
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
import {
  SIDE_SUFFIXES,
  cleanupOnSignals,
  createExclusive,
  linkNoReplace,
  occupied,
  refuseUnwritableOutput,
  removeStaleTemporaries,
  removeWithSideFiles,
  temporaryPath,
} from '../temporary.js';

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

/** The `export` command. */
function exportCommand(): Command {
  return new CliCommand('export')
    .description(SUMMARIES.export)
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .option('--force', 'replace --out if it exists')
    .run(async (ctx, opts: { out?: string; force?: boolean }) => {
      if (opts.out !== undefined) {
        refuseDatabaseAsOut(opts.out, ctx.dbPath);
        refuseUnwritableOutput(opts.out);
        if (occupied(inCwd(opts.out)) && !opts.force) throw new UserError(`${opts.out} exists (pass --force to replace it)`);
        removeStaleTemporaries(dirname(inCwd(opts.out)));
      }
      const partial = opts.out === undefined ? undefined : temporaryPath(inCwd(opts.out), 'exporting');
      const sink: Writable = partial === undefined ? io().stdout : createExclusive(partial, opts.out);
      const stopListening = partial === undefined ? () => {} : cleanupOnSignals(() => removeWithSideFiles(partial));
      const started = performance.now();
      let events = 0;
      try {
        await withDatabase(ctx.dbPath, { readonly: true }, async (db) => {
          const head = await db.log.head(STATE_STREAM);
          const progress = startProgress('exporting', head, partial === undefined || ctx.json);
          try {
            ({ events } = await exportLog(db.log, (chunk) => write(sink, chunk), { upTo: head, onProgress: (n) => progress.update(n) }));
          } finally {
            progress.stop();
          }
        });
        if (partial !== undefined) {
          sink.end();
          await once(sink, 'finish');
          // --force asked for the replacement; without it, a file that appeared meanwhile is kept.
          if (opts.force) {
            try {
              renameSync(partial, inCwd(opts.out!));
            } catch (error) {
              throw mapFileError(error, opts.out!, 'write');
            }
          } else linkNoReplace(partial, opts.out!, 'export');
        }
      } catch (error) {
        if (partial !== undefined) {
          sink.destroy();
          removeWithSideFiles(partial);
        }
        throw error;
      } finally {
        stopListening();
      }
      if (opts.out === undefined) return;
      const report = { out: opts.out, events, seconds: (performance.now() - started) / 1000 };
      show(ctx, report, `exported ${count(report.events)} events to ${opts.out} in ${report.seconds.toFixed(2)} s`);
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
