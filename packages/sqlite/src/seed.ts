/**
 * The SQLite seed (docs/contract.md §12, "A first sync into an empty store"): an empty file takes
 * every `state` event of another file's store, each checked and appended as a receive appends it, at
 * the seq it has there, and the rows that store's fold made, in the open write transaction. The
 * full-text rows and the read-side indexes are derived once at the end, as a bulk load derives them.
 */
import type { AppendInput, LogEvent } from '@agentstate/core';
import { CorruptionError, STATE_STREAM } from '@agentstate/core';
import type { Seeded } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import type { SqliteLog } from './log.js';
import { PROJECTION_TABLES, type Projection } from './projection.js';

/** Events read from the source at a time. */
const PAGE = 2_000;

/** The tables a fold writes but the state row and the full-text indexes: taken as the source holds them. */
const FOLDED_TABLES = [...PROJECTION_TABLES, 'record_events', 'memory_order', 'memory_epoch'] as const;

/** A store's parts a seed reads or writes. */
interface SeedParts {
  conn: Connection;
  log: SqliteLog;
  projection: Projection;
}

/** What {@link seedFrom} took, and where the target's log then stands. */
export interface SeededFile extends Seeded {
  head: number;
  headTime: string;
}

/**
 * Seeds `target`, whose log holds no `state` event and whose file holds no vector index, from `source`, another file's store,
 * inside `target`'s open write transaction, reading `source` in one read transaction (its process's other writes to it
 * wait): undefined, and nothing written, where `source` holds no `state` event or has tables behind its log. Each event,
 * checked against its checksum, is made by `received` (which throws for one no receive takes) and appended with its
 * stored text at its seq there; `headTime` is the time the first may not precede. Between pages of events it lets the
 * event loop run, and tells `onProgress` the events taken so far.
 */
export async function seedFrom(
  target: SeedParts,
  source: SeedParts,
  headTime: string | undefined,
  received: (event: LogEvent, sender: string, validated: boolean) => AppendInput,
  onProgress?: (taken: number) => void,
): Promise<SeededFile | undefined> {
  const onTarget = <T>(fn: () => T): T => target.conn.onWriter(fn);
  if (onTarget(() => target.conn.prepare('SELECT 1 FROM vector_indexes LIMIT 1').get()) !== undefined) return undefined;
  return source.conn.exclusive(() =>
    source.conn.readAcross(async () => {
      const head = source.log.headNow(STATE_STREAM);
      const state = source.projection.state();
      if (head === 0 || state.seq !== head) return undefined;
      const sender = source.log.identityNow();
      const vector: Record<string, number> = {};
      let time = headTime;
      onTarget(() => target.projection.beginBulk());
      try {
        for (let seq = 0; seq < head; ) {
          const events = source.log.readForSeed(seq, PAGE);
          if (events.length === 0) throw new CorruptionError(STATE_STREAM, seq + 1, 'the store synced from lacks this event of its log; nothing was received');
          onTarget(() => {
            for (const { event, text, validated } of events) {
              // At the seq it has there: a purge's marks on the events it erased name that seq.
              if (event.seq !== ++seq) throw new CorruptionError(STATE_STREAM, seq, 'the store synced from lacks this event of its log; nothing was received');
              const input = received(event, sender, validated);
              time = target.log.appendInTransaction(input, seq, time, text).event.time;
              // A store that received part of an origin holds its events out of their order.
              vector[input.origin!] = Math.max(vector[input.origin!] ?? 0, input.originSeq!);
            }
          });
          onProgress?.(seq);
          // A long seed leaves the process's other work its turns, as batches of a sync do.
          await new Promise((resolve) => setImmediate(resolve));
        }
        onTarget(() => {
          for (const table of FOLDED_TABLES) copyTable(source.conn, target.conn, table);
          target.projection.endBulk();
        });
      } finally {
        target.projection.cancelBulk();
      }
      return { received: head, vector, maxHlc: state.maxHlc, head, headTime: time! };
    }),
  );
}

/** Copies every row of `table` from `source` into `target`, whose one row of a single-row table it replaces. */
function copyTable(source: Connection, target: Connection, table: string): void {
  const columns = (target.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((column) => column.name).join(', ');
  const insert = target.prepare(`INSERT OR REPLACE INTO ${table} (${columns}) VALUES (${columns.replace(/[^,\s]+/g, '?')})`);
  for (const row of source.prepare(`SELECT ${columns} FROM ${table}`).raw(true).iterate() as IterableIterator<unknown[]>) insert.run(row);
}
