/**
 * `rebuild()` (docs/contract.md §8): drop and re-derive every projection table, the
 * full-text indexes and the vector indexes from the log, starting from the
 * newest snapshot that opens, decodes and agrees with the stream. It runs as
 * one write transaction: a corrupted event fails it with a `CorruptionError`
 * naming its seq and leaves the database exactly as it was. The same fold
 * fills the derived tables of a file written by an earlier version on open
 * ({@link refold}).
 */
import type { SnapshotCodec, UpcasterRegistry } from '@agentstate/core';
import type { LoadedSnapshot, RebuildOptions, RebuildResult } from '@agentstate/core/backend';
import { plainCodec, STATE_STREAM } from '@agentstate/core';
import { describeError, HLC_ZERO, loadSnapshot } from '@agentstate/core/backend';
import type { FoldOptions } from './fold.js';
import { foldPending } from './fold.js';
import type { Connection } from './connection.js';
import { mapErrors } from './errors.js';
import { SqliteLog } from './log.js';
import { Projection } from './projection.js';
import type { TableLookups } from './queries.js';
import { tableLookups } from './queries.js';
import { VectorIndexes } from './vectors.js';
import { refillRecordEvents } from './history.js';

/** The page cache of a rebuild, in KiB as `PRAGMA cache_size` takes it (negative): 512 MiB at most, allocated as used. */
const REBUILD_CACHE_KIB = -524_288;

/** What a rebuild works on. */
export interface RebuildContext {
  conn: Connection;
  log: SqliteLog;
  projection: Projection;
  /** Point look-ups of the tables being rebuilt, for the fold's rules. */
  tables: TableLookups;
  vectors: VectorIndexes;
  codec?: SnapshotCodec;
  upcasters?: UpcasterRegistry;
}

/** Rebuilds the projection of `ctx.conn` from its log. */
export function rebuild(ctx: RebuildContext, options: RebuildOptions = {}): Promise<RebuildResult> {
  const { conn, log } = ctx;
  return mapErrors(() =>
    conn.exclusive(async () => {
      // Choosing a snapshot only reads; the rebuild itself is one synchronous transaction.
      const head = log.headNow(STATE_STREAM);
      const loaded: LoadedSnapshot = options.fromScratch ? { snapshot: undefined, skipped: [] } : await loadSnapshot(log, ctx.codec ?? plainCodec, head);
      return withRebuildCache(conn, () => conn.immediateWhenFree(() => rebuildTables(ctx, loaded)));
    }),
  );
}

/**
 * Fills the derived tables of `conn`, just created again, from the whole log (snapshots were dropped
 * with them), inside the caller's write transaction: the first writable open of a file an earlier
 * version wrote. `onProgress` as the fold reports it.
 */
export function refold(conn: Connection, options: { upcasters?: UpcasterRegistry | undefined; onProgress?: FoldOptions['onProgress'] }): void {
  const vectors = new VectorIndexes(conn);
  const projection = new Projection(conn, vectors);
  const log = new SqliteLog(conn, { upcasters: options.upcasters });
  const ctx = { conn, log, projection, tables: tableLookups(conn), vectors, upcasters: options.upcasters };
  // The history index is refilled from the whole log before the fold's first batch: tell at once what is to fold.
  const head = log.headNow(STATE_STREAM);
  if (head > 0) options.onProgress?.(0, head);
  withRebuildCache(conn, () => rebuildTables(ctx, { snapshot: undefined, skipped: [] }, options.onProgress));
}

/** Runs `fn` with a large page cache on the write handle: a rebuild touches every page of the tables. */
function withRebuildCache<T>(conn: Connection, fn: () => T): T {
  const cacheSize = conn.writer.pragma('cache_size', { simple: true }) as number;
  conn.writer.pragma(`cache_size = ${REBUILD_CACHE_KIB}`);
  const restore = () => conn.writer.pragma(`cache_size = ${cacheSize}`);
  try {
    const result = fn();
    if (result instanceof Promise) return result.finally(restore) as T;
    restore();
    return result;
  } catch (error) {
    restore();
    throw error;
  }
}

/**
 * Runs `fold` into emptied tables, inside the caller's write transaction, as a bulk load: the read-side indexes, full-text rows and vectors are derived once
 * from the final rows (see `Projection.beginBulk`).
 */
export function bulkLoad<T>(projection: Projection, vectors: VectorIndexes, fold: () => T): T {
  projection.beginBulk();
  try {
    const result = fold();
    projection.endBulk();
    vectors.rebuild();
    return result;
  } finally {
    projection.cancelBulk();
  }
}

/** Empties the tables, restores the snapshot (if its rows are accepted) and folds the rest; inside the write transaction. */
function rebuildTables(ctx: RebuildContext, loaded: LoadedSnapshot, onProgress?: FoldOptions['onProgress']): RebuildResult {
  const { conn, log, projection } = ctx;
  const generation = projection.state().generation + 1;
  projection.clear();
  return bulkLoad(projection, ctx.vectors, () => {
    const skipped = [...loaded.skipped];
    let snapshot = loaded.snapshot;
    let hlc = HLC_ZERO;
    if (snapshot) {
      // A snapshot that decodes but whose rows the tables refuse is skipped too.
      conn.db.exec('SAVEPOINT restore_snapshot');
      try {
        hlc = projection.restore(snapshot);
        conn.db.exec('RELEASE restore_snapshot');
      } catch (error) {
        conn.db.exec('ROLLBACK TO restore_snapshot');
        conn.db.exec('RELEASE restore_snapshot');
        skipped.push({ seq: snapshot.seq, reason: describeError(error), damaged: true });
        snapshot = undefined;
      }
    }
    projection.saveState({ seq: snapshot?.seq ?? 0, maxHlc: hlc, generation });
    refillRecordEvents(conn, log, snapshot?.seq ?? 0, ctx.upcasters);
    const events = foldPending(log, projection, ctx.tables, { upcasters: ctx.upcasters, onProgress });
    return { seq: projection.state().seq, snapshotSeq: snapshot?.seq ?? 0, skipped, events };
  });
}
