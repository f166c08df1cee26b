/**
 * `importPostgres(urlOrPool, lines)`: an export loaded into an empty schema,
 * through the event path. Core's `ExportReader` checks every line (shape,
 * seq, payload, the fold's rules) and the trailer; the events are appended
 * in one transaction that also creates or prepares the schema and holds the
 * writers' lock exclusive, so a refused export leaves the schema as it was
 * (no schema at all when there was none) and no writer interleaves; the
 * `state` stream's positions go on after the last imported event. The same
 * transaction folds the events into the tables, which must equal the fold
 * of the export.
 */
import type pg from 'pg';
import type { AppendInput } from '@agentstate/core';
import { STATE_STREAM, ValidationError } from '@agentstate/core';
import type { ExportRead, ImportOptions, ImportResult } from '@agentstate/core/backend';
import { checkImported, ExportReader } from '@agentstate/core/backend';
import { PostgresLog } from './log.js';
import type { PostgresConnectionOptions } from './open.js';
import type { Database } from './database.js';
import { connectDatabase, openPostgres } from './open.js';
import { prepareSchema } from './schema.js';
import { writersLock } from './writers-lock.js';
import { foldPending } from './fold.js';
import { tableLookups } from './lookups.js';
import { Projection } from './projection.js';

/** Options of {@link importPostgres}. */
export interface PostgresImportOptions extends ImportOptions, PostgresConnectionOptions {}

/**
 * Loads the lines of an export (each without its newline) into the schema
 * at `urlOrPool`, whose `state` stream must be empty. A line that is not an
 * event this library could have written, or a trailer that does not match,
 * is an `ExportFormatError` naming the line, and nothing is stored.
 */
export async function importPostgres(
  urlOrPool: string | pg.Pool,
  lines: AsyncIterable<string> | Iterable<string>,
  options: PostgresImportOptions = {},
): Promise<ImportResult> {
  // A readline interface drops the lines it reads before iteration starts: start iterating before the first await.
  const source: Iterator<string> | AsyncIterator<string> =
    Symbol.asyncIterator in lines ? (lines as AsyncIterable<string>)[Symbol.asyncIterator]() : (lines as Iterable<string>)[Symbol.iterator]();
  let db: Database;
  try {
    db = connectDatabase(urlOrPool, options);
  } catch (error) {
    await source.return?.();
    throw error;
  }
  const reader = new ExportReader();
  let read: ExportRead | undefined;
  try {
    const log = new PostgresLog(db);
    await db.transaction(async (sql) => {
      // Created or prepared in the import's own transaction: a refused import leaves no new schema behind.
      await prepareSchema(sql, db.schema);
      await sql.rows(writersLock(db, 'exclusive'));
      const head = await log.headIn(sql, STATE_STREAM);
      if (head > 0) throw new ValidationError('schema', `${db.schema} already holds events up to seq ${head}: an import fills an empty schema`);
      let bytes = 0;
      // The time of the last event appended to each stream, which the next may not precede.
      const previous = new Map<string, string>();
      for (let next = await source.next(); next.done !== true; next = await source.next()) {
        const line = next.value;
        bytes += Buffer.byteLength(line) + 1;
        const event = reader.read(line);
        if (event === undefined) continue;
        if (event.input.stream !== STATE_STREAM && event.seq === 1) {
          // The head row of another stream (the policies') is made by its first append.
          await sql.rows(`INSERT INTO ${db.t('streams')} (stream, head) VALUES ($1, 0) ON CONFLICT (stream) DO NOTHING`, [event.input.stream]);
        }
        await log.appendInTransaction(sql, event.input as AppendInput, event.seq, previous.get(event.input.stream));
        previous.set(event.input.stream, event.input.time);
        if (event.seq % 1000 === 0) options.onProgress?.(bytes);
      }
      read = reader.finish(options);
      if (read.state.seq > 0) await sql.rows(`SELECT setval('${db.t('positions')}', $1)`, [read.state.seq]);
      // The tables are always the fold of the committed log: folded here, in the same transaction.
      await foldPending(sql, log, new Projection(db), tableLookups(db, sql), undefined, 0);
      options.onProgress?.(bytes);
    });
    db.announce();
  } catch (error) {
    await source.return?.();
    throw error;
  } finally {
    await db.close();
  }
  // The tables the import folded must equal the reader's fold.
  return checkImported(read!, () => openPostgres(urlOrPool, { schema: db.schema, max: options.max, connectTimeoutMs: options.connectTimeoutMs }));
}
