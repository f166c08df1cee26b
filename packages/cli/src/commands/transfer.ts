/**
 * `agentstate export` and `import`: the event log as JSON Lines, so a state
 * moves between machines and backends. Import builds a new database through
 * the event path (append the checked events, then rebuild the tables) in a
 * temporary file that becomes the target only when everything checked out.
 */
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { MemoryState, STATE_STREAM, encodeSnapshot } from '@agentstate/core';
import { contextOf } from '../context.js';
import { openLog, withDatabase } from '../database.js';
import { DamagedDatabaseError, UserError } from '../errors.js';
import type { ImportedEvent } from '../jsonl.js';
import { exportLine, parseEventLine } from '../jsonl.js';
import { count, print, printJson } from '../output.js';
import { startProgress } from '../progress.js';
import { sha256 } from '../verify.js';

const BATCH = 5_000;

async function write(stream: Writable, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/** Files SQLite keeps beside a database. */
function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/** The `export` command. */
function exportCommand(): Command {
  return new Command('export')
    .description('write the event log as JSON Lines (one event per line, in seq order) to stdout or --out')
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .option('--force', 'replace --out if it exists')
    .action(async (opts: { out?: string; force?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      if (opts.out !== undefined && existsSync(opts.out) && !opts.force) throw new UserError(`${opts.out} exists (pass --force to replace it)`);
      const partial = opts.out === undefined ? undefined : `${opts.out}.partial-${process.pid}`;
      const sink: Writable = partial === undefined ? process.stdout : createWriteStream(partial);
      const started = performance.now();
      let events = 0;
      try {
        await withDatabase(ctx.dbPath, { readonly: true }, async (db) => {
          const head = await db.log.head(STATE_STREAM);
          const progress = startProgress('exporting', head, partial === undefined || ctx.json);
          try {
            while (events < head) {
              const batch = await db.log.read({ stream: STATE_STREAM, afterSeq: events, limit: Math.min(BATCH, head - events) });
              if (batch.length === 0) break;
              await write(sink, `${batch.map(exportLine).join('\n')}\n`);
              events = batch[batch.length - 1]!.seq;
              progress.update(events);
            }
          } finally {
            progress.stop();
          }
        });
        if (partial !== undefined) {
          sink.end();
          await once(sink, 'finish');
          renameSync(partial, opts.out!);
        }
      } catch (error) {
        if (partial !== undefined) {
          sink.destroy();
          rmSync(partial, { force: true });
        }
        throw error;
      }
      if (opts.out === undefined) return;
      const report = { out: opts.out, events, seconds: (performance.now() - started) / 1000 };
      if (ctx.json) printJson(report);
      else print(`exported ${count(events)} events to ${opts.out} in ${report.seconds.toFixed(2)} s`);
    });
}

/** Imports the JSON Lines at `source` (`-`: stdin) into a new database at `target`. */
async function importInto(source: string, target: string, quiet: boolean) {
  if (existsSync(target)) throw new UserError(`${target} already exists: import creates a new database (choose another --db)`);
  let size = 0;
  if (source !== '-') {
    try {
      size = statSync(source).size;
    } catch (error) {
      throw new UserError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  const started = performance.now();
  const temporary = `${target}.importing-${process.pid}`;
  removeDatabaseFiles(temporary);
  const progress = startProgress('importing', size, quiet, 'bytes');
  // Interrupted, the half-made file goes too: nothing but a complete import is ever left.
  const interrupted = (): void => {
    progress.stop();
    removeDatabaseFiles(temporary);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    // 1. Append every checked event to the bare log of a new file, folding them in memory on the way.
    const state = new MemoryState();
    const log = await openLog(temporary, { create: true });
    try {
      const lines = createInterface({ input: source === '-' ? process.stdin : createReadStream(source), crlfDelay: Infinity });
      let pending: ImportedEvent['input'][] = [];
      const flush = async (): Promise<void> => {
        const stored = await log.appendMany(pending);
        const last = stored[stored.length - 1];
        if (last && last.seq !== state.seq) throw new DamagedDatabaseError(`the new database gave event ${state.seq} seq ${last.seq}`);
        pending = [];
      };
      let lineNo = 0;
      let consumed = 0;
      for await (const line of lines) {
        lineNo += 1;
        consumed += Buffer.byteLength(line) + 1;
        if (line.trim() === '') continue;
        const event = parseEventLine(line, lineNo, state.seq + 1);
        state.apply(event.change, event.seq);
        pending.push(event.input);
        if (pending.length >= BATCH) {
          await flush();
          progress.update(consumed);
        }
      }
      await flush();
      progress.update(consumed);
    } finally {
      await log.close();
    }
    // 2. Opening the provider projects the appended events into the tables; they must equal the fold.
    const expected = encodeSnapshot(state.capture());
    await withDatabase(temporary, {}, async (db) => {
      if (encodeSnapshot(await db.snapshot()) !== expected) throw new DamagedDatabaseError('the imported tables differ from a replay of the imported events');
    });
    // 3. Only a complete, checked database takes the target's name.
    renameSync(temporary, target);
    return { db: target, events: state.seq, sha256: sha256(expected), seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    removeDatabaseFiles(temporary);
    throw error;
  } finally {
    process.removeListener('SIGINT', interrupted);
    progress.stop();
  }
}

/** The `import` command. */
function importCommand(): Command {
  return new Command('import')
    .description('create a new database (--db) from a JSON Lines export, checking every event before anything is kept')
    .argument('<file>', 'the export to read, or - for stdin')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const report = await importInto(file, ctx.dbPath, ctx.json);
      if (ctx.json) printJson(report);
      else print(`imported ${count(report.events)} events into ${report.db} in ${report.seconds.toFixed(2)} s (snapshot sha256 ${report.sha256})`);
    });
}

/** The transfer commands. */
export function transferCommands(): Command[] {
  return [exportCommand(), importCommand()];
}
