/**
 * `importSqlite(path, lines)`: a new SQLite database from an export, through
 * the event path. Core's {@link ExportReader} checks every line (shape, seq,
 * payload, then the fold's rules) and each checked event, of the `state`
 * stream or the `retention` stream, is appended to the bare log of the new file; the trailer must match what was read; opening
 * the file then projects the log into the tables, which must equal the
 * fold. Where the file goes once complete, and removing it on failure, is
 * the caller's business: a refused import leaves a partial file at `path`.
 */
import type { AppendInput } from '@agentstate/core';
import type { ImportOptions, ImportResult } from '@agentstate/core/backend';
import { CorruptionError, ValidationError } from '@agentstate/core';
import { checkImported, ExportReader } from '@agentstate/core/backend';
import { occupied } from './file.js';
import { openSqlite, openSqliteLog } from './open.js';

/** Events appended per transaction. */
const BATCH = 5_000;

/**
 * Creates the database at `path` (which must not exist) from the lines of
 * an export, each without its newline. A line that is not an event this
 * library could have written, or a trailer that does not match, is an
 * `ExportFormatError` naming the line.
 */
export async function importSqlite(path: string, lines: AsyncIterable<string> | Iterable<string>, options: ImportOptions = {}): Promise<ImportResult> {
  if (occupied(path)) throw new ValidationError('path', `${path} exists: an import creates a new database`);
  const reader = new ExportReader();
  const log = openSqliteLog(path);
  try {
    let pending: { input: AppendInput; seq: number }[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      const stored = await log.appendMany(pending.map((p) => p.input));
      for (const [i, event] of stored.entries()) {
        const wanted = pending[i]!;
        if (event.seq !== wanted.seq) throw new CorruptionError(event.stream, event.seq, `the new database stored event ${wanted.seq} at this seq`);
      }
      pending = [];
    };
    for await (const line of lines) {
      bytes += Buffer.byteLength(line) + 1;
      const event = reader.read(line);
      if (event === undefined) continue;
      pending.push({ input: event.input, seq: event.seq });
      if (pending.length >= BATCH) {
        await flush();
        options.onProgress?.(bytes);
      }
    }
    await flush();
    options.onProgress?.(bytes);
  } finally {
    await log.close();
  }
  // Opening the provider projects the appended events into the tables; they must equal the fold.
  return checkImported(reader.finish(options), () => openSqlite(path));
}
