/**
 * Import: a new database from an export, through the event path. Every
 * line is checked (shape, seq, payload, then the fold's rules, the same
 * step replay and verify take) and appended to the bare log of a temporary
 * file beside the target; the trailer must match what was read; the tables
 * derived from the log must equal the fold. Only then does the file take
 * the target's name, and never by replacing one that appeared meanwhile
 * (see `temporary.ts`). Anything refused leaves no file behind.
 */
import { createReadStream, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { CorruptionError, MemoryState, encodeSnapshot } from '@agentstate/core';
import { openLog, withDatabase } from './database.js';
import { DamagedDatabaseError, UserError } from './errors.js';
import type { ImportedEvent } from './jsonl.js';
import { checkEventLine, lineError, parseJsonLine } from './jsonl.js';
import type { Progress } from './progress.js';
import { startProgress } from './progress.js';
import type { Trailer } from './trailer.js';
import { ExportDigest, isTrailerValue, readTrailer } from './trailer.js';
import { cleanupOnSignals, linkNoReplace, occupied, refuseOccupiedDatabase, removeStaleTemporaries, removeWithSideFiles, temporaryPath } from './temporary.js';
import { sha256 } from './verify.js';

const BATCH = 5_000;

/** Options of {@link importInto}. */
export interface ImportOptions {
  /** Accept an export without a trailer (made before trailers existed), after the same checks. */
  allowUntrailed: boolean;
  /** No progress bar. */
  quiet: boolean;
}

/** What an import did. */
export interface ImportReport {
  db: string;
  events: number;
  /** SHA-256 of the canonical snapshot text of the new database. */
  sha256: string;
  /** Whether the export ended with a trailer (false only with `allowUntrailed`). */
  trailer: boolean;
  seconds: number;
}

/** Imports the JSON Lines at `source` (`-`: stdin) into a new database at `target`. */
export async function importInto(source: string, target: string, options: ImportOptions): Promise<ImportReport> {
  refuseOccupiedDatabase(target);
  let size = 0;
  if (source !== '-') {
    try {
      size = statSync(source).size;
    } catch (error) {
      throw new UserError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  const started = performance.now();
  removeStaleTemporaries(dirname(target));
  const temporary = temporaryPath(target, 'importing');
  removeWithSideFiles(temporary);
  const progress = startProgress('importing', size, options.quiet, 'bytes');
  // Interrupted, the half-made file goes too: nothing but a complete import is ever left.
  const stopListening = cleanupOnSignals(() => {
    progress.stop();
    removeWithSideFiles(temporary);
  });
  try {
    const { state, trailer } = await appendExport(source, temporary, options, progress);
    // Opening the provider projects the appended events into the tables; they must equal the fold.
    const expected = encodeSnapshot(state.capture());
    await withDatabase(temporary, {}, async (db) => {
      if (encodeSnapshot(await db.snapshot()) !== expected) throw new DamagedDatabaseError('the imported tables differ from a replay of the imported events');
    });
    // Closed by its last connection, the file holds everything: no WAL may be left to lose.
    if (occupied(`${temporary}-wal`)) throw new DamagedDatabaseError(`the new database ${temporary} did not close cleanly (its WAL remains)`);
    refuseOccupiedDatabase(target, 'appeared while the import ran and was left untouched');
    linkNoReplace(temporary, target, 'import');
    return { db: target, events: state.seq, sha256: sha256(expected), trailer: trailer !== undefined, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    removeWithSideFiles(temporary);
    throw error;
  } finally {
    stopListening();
    progress.stop();
  }
}

/** Checks every line of the export, folds it and appends it to the bare log of a new file at `path`. */
async function appendExport(source: string, path: string, options: ImportOptions, progress: Progress) {
  const state = new MemoryState();
  const digest = new ExportDigest();
  let trailer: { value: Trailer; lineNo: number } | undefined;
  const log = await openLog(path, { create: true });
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
      if (trailer !== undefined) throw lineError(lineNo, `a line after the trailer (line ${trailer.lineNo}), which must be the last`);
      const value = parseJsonLine(line, lineNo);
      if (isTrailerValue(value)) {
        const read = readTrailer(value);
        if (typeof read === 'string') throw lineError(lineNo, read);
        trailer = { value: read, lineNo };
        continue;
      }
      const event = checkEventLine(value, lineNo, state.seq + 1);
      fold(state, event, lineNo);
      digest.add(line);
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
  checkTrailer(trailer, digest.finish(), options.allowUntrailed);
  return { state, trailer: trailer?.value };
}

/** Folds a checked event; a broken fold rule names the line. */
function fold(state: MemoryState, event: ImportedEvent, lineNo: number): void {
  try {
    state.apply(event.change, event.seq);
  } catch (error) {
    if (error instanceof CorruptionError) throw lineError(lineNo, `${error.message.replace(/^corrupt [^:]*: /, '')} (the live API never writes this)`);
    throw error;
  }
}

function checkTrailer(trailer: { value: Trailer; lineNo: number } | undefined, read: Trailer, allowUntrailed: boolean): void {
  if (trailer === undefined) {
    if (allowUntrailed) return;
    const what = read.events === 0 ? 'the export is empty: it has no trailer line' : `the export ends after ${read.events} events without a trailer line`;
    throw new UserError(
      `${what}, so it may have been cut short (an export ends with {"trailer":{"events":N,"sha256":…}}); an export made before trailers existed imports with --allow-untrailed, after the same checks; nothing was imported`,
    );
  }
  const { value, lineNo } = trailer;
  if (value.events !== read.events) {
    throw lineError(lineNo, `the trailer counts ${value.events} events but ${read.events} precede it: the export is incomplete or was edited`);
  }
  if (value.sha256 !== read.sha256) throw lineError(lineNo, 'the sha256 of the trailer does not match the events before it: the export was changed or damaged');
}
