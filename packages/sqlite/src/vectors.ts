/**
 * Derived vectors in sqlite-vec (docs/contract.md §6): the tables of every
 * embedder's index. Per embedder and target (memory items, turns) a `vec0`
 * table with cosine distance and two metadata columns (an item's scope and
 * kind, a turn's session and role), so filtered nearest-neighbour queries
 * are exact, and a list of the rows that have a vector. Vectors exist only
 * for live records (a turn's session live too): the projection drops a
 * record's vectors with its tombstone, and a rebuild re-creates them from
 * the embedding cache, which is keyed by `(embedder id, content hash)`,
 * shared by both targets (equal text is embedded once) and survives rebuilds.
 */
import { UnavailableError, ValidationError } from '@agentstate/core';
import { contentHash } from '@agentstate/core/backend';
import type { Connection } from './connection.js';

/** sqlite-vec's largest `k`. */
export const MAX_NEIGHBOURS = 4096;

/** One embedder's vector tables (one per target, numbered alike). */
export interface VectorIndex {
  no: number;
  embedder_id: string;
  dimensions: number;
}

/** What a target's vectors are stored in: its `vec0` tables, their metadata columns and the list of rows that have one. */
export interface VectorTarget {
  /** The `vec0` table of an index is `<prefix>_<no>`. */
  prefix: 'memory_vec' | 'turn_vec';
  /** The table listing which rows have a vector in an index, and its row column. */
  listed: 'memory_vectors' | 'turn_vectors';
  rowColumn: 'item_n' | 'turn_n';
  /** The record table's columns copied into the `vec0` table, for its filters. */
  meta: readonly [string, string];
  /** The `n`, `content` and {@link meta} columns of the rows that get vectors, in `n` order. */
  liveRows: string;
}

/** Memory items: live items, filtered by scope and kind. */
export const MEMORY_TARGET: VectorTarget = {
  prefix: 'memory_vec',
  listed: 'memory_vectors',
  rowColumn: 'item_n',
  meta: ['scope_key', 'kind'],
  liveRows: 'SELECT n, content, scope_key, kind FROM memory WHERE deleted = 0 ORDER BY n',
};

/** Turns: live turns of live sessions, filtered by session and role. */
export const TURN_TARGET: VectorTarget = {
  prefix: 'turn_vec',
  listed: 'turn_vectors',
  rowColumn: 'turn_n',
  meta: ['session_id', 'role'],
  liveRows:
    'SELECT t.n, t.content, t.session_id, t.role FROM turns t WHERE t.deleted = 0 AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = t.session_id AND s.deleted = 0) ORDER BY t.n',
};

/** The `vec0` table of a target's vectors in an index. */
export const vecTable = (target: VectorTarget, index: { no: number }): string => `${target.prefix}_${Math.trunc(index.no)}`;

/** A stored float32 vector as a typed array. */
export function fromBlob(blob: Buffer): Float32Array {
  const out = new Float32Array(blob.length / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/** The vector tables themselves: used by the projection, rebuild and the stores. All synchronous. */
export class VectorIndexes {
  constructor(private readonly conn: Connection) {}

  /** True when sqlite-vec is loaded, so vectors can be stored and searched. */
  get available(): boolean {
    return this.conn.vectorsLoaded;
  }

  list(): VectorIndex[] {
    return this.conn.prepare('SELECT no, embedder_id, dimensions FROM vector_indexes ORDER BY no').all() as VectorIndex[];
  }

  find(embedderId: string): VectorIndex | undefined {
    return this.conn.prepare('SELECT no, embedder_id, dimensions FROM vector_indexes WHERE embedder_id = ?').get(embedderId) as VectorIndex | undefined;
  }

  /** The embedder's index, created when missing. Inside a write transaction. */
  ensure(embedderId: string, dimensions: number): VectorIndex {
    const found = this.find(embedderId);
    if (found) {
      if (found.dimensions !== dimensions) {
        throw new ValidationError('vector', `embedder ${embedderId} stored ${found.dimensions}-dimensional vectors, not ${dimensions}`);
      }
      return found;
    }
    if (!Number.isInteger(dimensions) || dimensions <= 0) throw new ValidationError('vector', 'must have at least one dimension');
    const no = Number(this.conn.prepare('INSERT INTO vector_indexes (embedder_id, dimensions) VALUES (?, ?)').run(embedderId, dimensions).lastInsertRowid);
    const index = { no, embedder_id: embedderId, dimensions };
    this.#createTable(MEMORY_TARGET, index);
    this.#createTable(TURN_TARGET, index);
    return index;
  }

  /** Drops every vector of the item at `memory.n = n` (its tombstone was projected). */
  forget(n: number): void {
    this.#forget(MEMORY_TARGET, n);
  }

  /** Drops every vector of the turn at `turns.n = n` (its tombstone was projected). */
  forgetTurn(n: number): void {
    this.#forget(TURN_TARGET, n);
  }

  #forget(target: VectorTarget, n: number, indexes = this.list()): void {
    for (const index of indexes) {
      const had = this.conn.prepare(`DELETE FROM ${target.listed} WHERE index_no = ? AND ${target.rowColumn} = ?`).run(index.no, n);
      if (had.changes > 0) this.conn.prepare(`DELETE FROM ${vecTable(target, index)} WHERE rowid = ?`).run(BigInt(n));
    }
  }

  /**
   * Drops every vector of the turns of session `sessionId` (its tombstone was
   * projected): its turns stay live rows, but no search may return them.
   */
  forgetSession(sessionId: string): void {
    const turns = this.conn.prepare('SELECT DISTINCT turn_n FROM turn_vectors JOIN turns ON n = turn_n WHERE session_id = ?').pluck().all(sessionId);
    const indexes = this.list();
    for (const n of turns as number[]) this.#forget(TURN_TARGET, n, indexes);
  }

  /** True when the row `n` of the target has a vector in `index`. */
  has(target: VectorTarget, index: VectorIndex, n: number): boolean {
    return this.conn.prepare(`SELECT 1 FROM ${target.listed} WHERE index_no = ? AND ${target.rowColumn} = ?`).get(index.no, n) !== undefined;
  }

  /** Stores the vector of the target's row `n`, with the values of its {@link VectorTarget.meta} columns. Inside a write transaction. */
  add(target: VectorTarget, index: VectorIndex, n: number, vector: Float32Array, meta: readonly [string, string]): void {
    checkDimensions(index.dimensions, vector.length);
    this.conn
      .prepare(`INSERT INTO ${vecTable(target, index)} (rowid, embedding, ${target.meta.join(', ')}) VALUES (?, ?, ?, ?)`)
      .run(BigInt(n), vector, ...meta);
    this.conn.prepare(`INSERT INTO ${target.listed} (index_no, ${target.rowColumn}) VALUES (?, ?)`).run(index.no, n);
  }

  /** Caches a vector by content hash. */
  cache(embedderId: string, hash: string, vector: Float32Array): void {
    this.conn
      .prepare(
        'INSERT INTO embedding_cache (embedder_id, content_hash, vector) VALUES (?, ?, ?) ON CONFLICT (embedder_id, content_hash) DO UPDATE SET vector = excluded.vector',
      )
      .run(embedderId, hash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  }

  /** Cached vectors by content hash. */
  cached(embedderId: string, hashes: readonly string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    if (hashes.length === 0) return out;
    const rows = this.conn
      .prepare('SELECT content_hash, vector FROM embedding_cache WHERE embedder_id = ? AND content_hash IN (SELECT value FROM json_each(?))')
      .all(embedderId, JSON.stringify(hashes)) as { content_hash: string; vector: Buffer }[];
    for (const row of rows) out.set(row.content_hash, fromBlob(row.vector));
    return out;
  }

  /**
   * Empties every vector table and re-creates the vectors of live records
   * from the cache (records whose content is not cached stay pending).
   * Inside the rebuild's write transaction.
   */
  rebuild(): void {
    const indexes = this.list();
    if (indexes.length === 0) return;
    if (!this.available) throw new UnavailableError('this database holds vectors: rebuilding it needs sqlite-vec (install it, never with --omit=optional)');
    const lookup = this.conn.prepare('SELECT vector FROM embedding_cache WHERE embedder_id = ? AND content_hash = ?');
    for (const target of [MEMORY_TARGET, TURN_TARGET]) {
      this.conn.prepare(`DELETE FROM ${target.listed}`).run();
      for (const index of indexes) {
        this.conn.db.exec(`DROP TABLE IF EXISTS ${vecTable(target, index)}`);
        this.#createTable(target, index);
      }
      const rows = this.conn.prepare(target.liveRows).all() as ({ n: number; content: string } & Record<string, unknown>)[];
      for (const index of indexes) {
        for (const record of rows) {
          const row = lookup.get(index.embedder_id, contentHash(record.content)) as { vector: Buffer } | undefined;
          if (row && row.vector.length === index.dimensions * 4) this.add(target, index, record.n, fromBlob(row.vector), metaOf(target, record));
        }
      }
    }
  }

  /** Creates the target's table of an index when missing: only an index being made or rebuilt lacks one. */
  #createTable(target: VectorTarget, index: VectorIndex): void {
    this.conn.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${vecTable(target, index)} USING vec0(embedding float[${Math.trunc(index.dimensions)}] distance_metric=cosine, ${target.meta.map((c) => `${c} text`).join(', ')})`,
    );
  }
}

/** The values of a target's {@link VectorTarget.meta} columns in a row. */
export const metaOf = (target: VectorTarget, row: Record<string, unknown>): [string, string] => [String(row[target.meta[0]]), String(row[target.meta[1]])];

/** Refuses a vector of other than the index's dimensions. */
export function checkDimensions(expected: number, actual: number): void {
  if (actual !== expected) throw new ValidationError('vector', `expected ${expected} dimensions, got ${actual}`);
}
