/**
 * Import's file handling: a new database from an export, built by the
 * backend (`importSqlite`, which checks every line, the fold's rules and the
 * trailer) in a temporary file beside the target. Only when everything
 * checked out does the file take the target's name, and never by replacing
 * one that appeared meanwhile (see `temporary.ts`). Anything refused leaves
 * no file behind.
 */
import { createReadStream, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { ExportFormatError } from '@agentstate/core';
import { importSqlite, mapFileError, occupied } from '@agentstate/sqlite';
import { DamagedDatabaseError, UserError } from './errors.js';
import { inCwd, io } from './io.js';
import { startProgress } from './progress.js';
import { isPostgresUrl, redactUrl, splitSchema } from '@agentstate/postgres/url';
import { makeInPlace, refuseOccupiedDatabase } from './temporary.js';

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

/** The size of the export at `source` in bytes (0 for stdin); unreadable, a {@link UserError}. */
function sourceSize(source: string): number {
  if (source === '-') return 0;
  try {
    return statSync(inCwd(source)).size;
  } catch (error) {
    throw new UserError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Feeds the lines of `source` (`-`: stdin) to `importer`: an export it refuses is the user's mistake. */
async function importLines<R>(source: string, importer: (lines: AsyncIterable<string>) => Promise<R>): Promise<R> {
  const lines = createInterface({ input: source === '-' ? io().stdin : createReadStream(inCwd(source)), crlfDelay: Infinity });
  return importer(lines).catch((error: unknown) => {
    if (error instanceof ExportFormatError) throw new UserError(`${error.message}; nothing was imported`, { cause: error });
    throw error;
  });
}

/** Imports the JSON Lines at `source` (`-`: stdin) into a new database at `target`: a file, or an empty schema of a PostgreSQL URL. */
export async function importInto(source: string, target: string, options: ImportOptions): Promise<ImportReport> {
  if (isPostgresUrl(target)) return importIntoPostgres(source, target, options);
  refuseOccupiedDatabase(target);
  const size = sourceSize(source);
  const started = performance.now();
  const folder = dirname(target);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw mapFileError(error, folder, 'create the folder');
  }
  const progress = startProgress('importing', size, options.quiet, 'bytes');
  const build = async (temporary: string): Promise<ImportReport> => {
    const onProgress = (bytes: number) => progress.update(bytes);
    const result = await importLines(source, (lines) => importSqlite(temporary, lines, { allowUntrailed: options.allowUntrailed, onProgress }));
    // Closed by its last connection, the file holds everything: no WAL may be left to lose.
    if (occupied(`${temporary}-wal`)) throw new DamagedDatabaseError(`the new database ${temporary} did not close cleanly (its WAL remains)`);
    refuseOccupiedDatabase(target, 'appeared while the import ran and was left untouched');
    return { db: target, events: result.events, sha256: result.sha256, trailer: result.trailer !== undefined, seconds: (performance.now() - started) / 1000 };
  };
  try {
    // Interrupted, the half-made file goes too: nothing but a complete import is ever left.
    return await makeInPlace(target, target, 'importing', build, { onSignal: () => progress.stop() });
  } finally {
    progress.stop();
  }
}

/**
 * Imports into the schema a PostgreSQL URL names, which must hold no
 * events: one transaction, so a refused export leaves it as it was.
 */
async function importIntoPostgres(source: string, target: string, options: ImportOptions): Promise<ImportReport> {
  const size = sourceSize(source);
  const started = performance.now();
  const { importPostgres } = await import('@agentstate/postgres');
  const { url, schema } = splitSchema(target);
  const progress = startProgress('importing', size, options.quiet, 'bytes');
  try {
    const onProgress = (bytes: number) => progress.update(bytes);
    const result = await importLines(source, (lines) => importPostgres(url, lines, { schema, allowUntrailed: options.allowUntrailed, onProgress }));
    const db = redactUrl(target);
    return { db, events: result.events, sha256: result.sha256, trailer: result.trailer !== undefined, seconds: (performance.now() - started) / 1000 };
  } finally {
    progress.stop();
  }
}
