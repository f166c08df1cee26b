/**
 * `verify()`: checks every part of an agentstate SQLite file and says what
 * is damaged and what repairs it. In one read transaction, so every check
 * sees the same committed state while other processes keep writing:
 * SQLite's integrity check over every page and index, the log read back and
 * replayed against the tables and every stored snapshot, the projection's
 * bookkeeping, the full-text indexes against the rows, and the vector
 * tables. Nothing is written to the file.
 */
import type { VerifyReport as CoreVerifyReport, SnapshotCodec, UpcasterRegistry } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';
import type { VerifyOptions as CoreVerifyOptions } from '@agentstate/core/backend';
import { checkMetadataIndex, verifyReport } from '@agentstate/core/backend';
import { captureSnapshot } from '../backend.js';
import type { Connection } from '../connection.js';
import { mapErrors } from '../errors.js';
import { allRecordEvents } from '../history.js';
import type { SqliteLog } from '../log.js';
import type { Projection } from '../projection.js';
import { checkBookkeeping } from './bookkeeping.js';
import { checkFullText } from './fts.js';
import { checkIntegrity } from './integrity.js';
import { checkVectors } from './vectors.js';

export type { Repair, VerifyPart, VerifyProblem } from '@agentstate/core';
export { REPAIR_ADVICE } from '@agentstate/core';

/** Options of `verify()`. */
export interface VerifyOptions extends CoreVerifyOptions {
  /**
   * Use SQLite's `quick_check` instead of the full `integrity_check`: much
   * faster on large files, but it does not check that every index agrees
   * with its table. Default: the full check.
   */
  quick?: boolean;
}

/** The outcome of `verify()`: core's report, with what only a SQLite file has. */
export interface VerifyReport extends CoreVerifyReport {
  /** Which SQLite check ran over the pages. */
  integrityCheck: 'full' | 'quick';
  /** Live memory items still waiting for a vector, per embedder id (derived lazily: not damage). */
  pendingVectors: Record<string, number>;
  /** Live turns of live sessions still waiting for a vector, per embedder id (derived lazily: not damage). */
  pendingTurnVectors: Record<string, number>;
}

/** What verification works on. */
export interface VerifyContext {
  conn: Connection;
  log: SqliteLog;
  projection: Projection;
  codec?: SnapshotCodec;
  upcasters?: UpcasterRegistry;
}

/** Verifies the database of `ctx.conn`; see the module comment. */
export function verify(ctx: VerifyContext, options: VerifyOptions = {}): Promise<VerifyReport> {
  const { conn } = ctx;
  return mapErrors(() => conn.exclusive(() => conn.readAcross(() => verifyNow(ctx, options))));
}

async function verifyNow(ctx: VerifyContext, options: VerifyOptions): Promise<VerifyReport> {
  const { conn, log } = ctx;
  const quick = options.quick === true;
  let pendingVectors: Record<string, number> = {};
  let pendingTurnVectors: Record<string, number> = {};
  const report = await verifyReport(
    {
      first: () => checkIntegrity(conn, quick),
      capture: () => captureSnapshot(conn, ctx.projection),
      // The identity as the file holds it now, not as the log read it when opened.
      source: {
        head: (s) => log.head(s),
        read: (q) => log.read(q),
        latestSnapshot: (s, o) => log.latestSnapshot(s, o),
        identity: async () => log.identityNow(),
      },
      otherStreams: () => (conn.prepare('SELECT DISTINCT stream FROM events WHERE stream <> ?').pluck().all(STATE_STREAM) as string[]).sort(),
      historyIndex: async () => allRecordEvents(conn).map((row) => ({ recordId: row.record_id, seq: row.seq })),
      codec: ctx.codec,
      upcasters: ctx.upcasters,
      reportUnreadableLog: true,
      derived: () => [
        ['tables', () => checkBookkeeping(conn)],
        [
          'tables',
          () =>
            checkMetadataIndex(rows(conn, 'SELECT n, metadata FROM memory WHERE deleted = 0'), rows(conn, 'SELECT item_n, path, type, value FROM memory_meta')),
        ],
        ['fts', () => conn.withScratch(() => checkFullText(conn))],
        [
          'vectors',
          () => {
            const found = checkVectors(conn);
            pendingVectors = found.pending;
            pendingTurnVectors = found.pendingTurns;
            return found.problems;
          },
        ],
      ],
    },
    options,
  );
  return { ...report, integrityCheck: quick ? 'quick' : 'full', pendingVectors, pendingTurnVectors };
}

/** The rows of a statement, read as the caller iterates them. */
function rows<R>(conn: Connection, sql: string): Iterable<R> {
  return { [Symbol.iterator]: () => conn.prepare(sql).iterate() as IterableIterator<R> };
}
