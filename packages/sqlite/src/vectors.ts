/**
 * Derived vectors of memory items in sqlite-vec (docs/contract.md §6). Each embedder
 * gets a `vec0` table with cosine distance and the item's scope and kind as
 * metadata columns, so filtered nearest-neighbour queries are exact. Vectors
 * exist only for live items: the projection drops an item's vectors with
 * its tombstone, and a rebuild re-creates them from the embedding cache,
 * which is keyed by `(embedder id, content hash)` and survives rebuilds.
 */
import type { MemoryItem } from '@agentstate/core';
import type { VectorQuery, VectorStore, MemoryRow } from '@agentstate/core/backend';
import { contentHash, descendantKeyRange, holdsContent, scopeKey, memoryFromRow } from '@agentstate/core/backend';
import { CorruptionError, UnavailableError, ValidationError } from '@agentstate/core';
import type { Connection } from './connection.js';
import { memoryRowFilter } from './metadata.js';
import { matchesNothing } from './scope-sql.js';

/** sqlite-vec's largest `k`. */
export const MAX_NEIGHBOURS = 4096;

/** One embedder's vector tables (one for memory items, one for turns, numbered alike). */
export interface VectorIndex {
  no: number;
  embedder_id: string;
  dimensions: number;
}

const tableOf = (index: { no: number }): string => `memory_vec_${Math.trunc(index.no)}`;

/** The sqlite-vec table of an index's turn vectors. */
export const turnTableOf = (index: { no: number }): string => `turn_vec_${Math.trunc(index.no)}`;

function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A stored float32 vector as a typed array. */
export function fromBlob(blob: Buffer): Float32Array {
  const out = new Float32Array(blob.length / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/** The vector tables themselves: used by the projection, rebuild and the store. All synchronous. */
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
    this.#create(index);
    return index;
  }

  /** Drops every vector of the item at `memory.n = n` (its tombstone was projected). */
  forget(n: number): void {
    for (const index of this.list()) {
      const had = this.conn.prepare('DELETE FROM memory_vectors WHERE index_no = ? AND item_n = ?').run(index.no, n);
      if (had.changes > 0) this.conn.prepare(`DELETE FROM ${tableOf(index)} WHERE rowid = ?`).run(BigInt(n));
    }
  }

  /** Drops every vector of the turn at `turns.n = n` (its tombstone was projected). */
  forgetTurn(n: number): void {
    for (const index of this.list()) {
      const had = this.conn.prepare('DELETE FROM turn_vectors WHERE index_no = ? AND turn_n = ?').run(index.no, n);
      if (had.changes > 0) this.conn.prepare(`DELETE FROM ${turnTableOf(index)} WHERE rowid = ?`).run(BigInt(n));
    }
  }

  /**
   * Drops every vector of the turns of session `sessionId` (its tombstone was
   * projected): its turns stay live rows, but no search may return them.
   */
  forgetSession(sessionId: string): void {
    for (const index of this.list()) {
      const turns = this.conn
        .prepare('SELECT v.turn_n AS n FROM turn_vectors v JOIN turns t ON t.n = v.turn_n WHERE v.index_no = ? AND t.session_id = ?')
        .all(index.no, sessionId) as { n: number }[];
      for (const { n } of turns) {
        this.conn.prepare('DELETE FROM turn_vectors WHERE index_no = ? AND turn_n = ?').run(index.no, n);
        this.conn.prepare(`DELETE FROM ${turnTableOf(index)} WHERE rowid = ?`).run(BigInt(n));
      }
    }
  }

  /** True when the turn has a vector in `index`. */
  hasTurn(index: VectorIndex, n: number): boolean {
    return this.conn.prepare('SELECT 1 FROM turn_vectors WHERE index_no = ? AND turn_n = ?').get(index.no, n) !== undefined;
  }

  /** Stores one turn's vector. Inside a write transaction. */
  addTurn(index: VectorIndex, n: number, vector: Float32Array, sessionId: string, role: string): void {
    if (vector.length !== index.dimensions) {
      throw new ValidationError('vector', `expected ${index.dimensions} dimensions, got ${vector.length}`);
    }
    this.conn.prepare(`INSERT INTO ${turnTableOf(index)} (rowid, embedding, session_id, role) VALUES (?, ?, ?, ?)`).run(BigInt(n), vector, sessionId, role);
    this.conn.prepare('INSERT INTO turn_vectors (index_no, turn_n) VALUES (?, ?)').run(index.no, n);
  }

  /** True when the item has a vector in `index`. */
  has(index: VectorIndex, n: number): boolean {
    return this.conn.prepare('SELECT 1 FROM memory_vectors WHERE index_no = ? AND item_n = ?').get(index.no, n) !== undefined;
  }

  /** Stores one item's vector. Inside a write transaction. */
  add(index: VectorIndex, n: number, vector: Float32Array, scope: string, kind: string): void {
    if (vector.length !== index.dimensions) {
      throw new ValidationError('vector', `expected ${index.dimensions} dimensions, got ${vector.length}`);
    }
    this.conn.prepare(`INSERT INTO ${tableOf(index)} (rowid, embedding, scope_key, kind) VALUES (?, ?, ?, ?)`).run(BigInt(n), vector, scope, kind);
    this.conn.prepare('INSERT INTO memory_vectors (index_no, item_n) VALUES (?, ?)').run(index.no, n);
  }

  /** Caches a vector by content hash. */
  cache(embedderId: string, hash: string, vector: Float32Array): void {
    this.conn
      .prepare(
        'INSERT INTO embedding_cache (embedder_id, content_hash, vector) VALUES (?, ?, ?) ON CONFLICT (embedder_id, content_hash) DO UPDATE SET vector = excluded.vector',
      )
      .run(embedderId, hash, toBlob(vector));
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
   * Empties every vector table and re-creates the vectors of live items from
   * the cache (items whose content is not cached stay pending). Inside the
   * rebuild's write transaction.
   */
  rebuild(): void {
    const indexes = this.list();
    if (indexes.length === 0) return;
    if (!this.available) throw new UnavailableError('this database holds vectors: rebuilding it needs sqlite-vec (install it, never with --omit=optional)');
    this.conn.prepare('DELETE FROM memory_vectors').run();
    this.conn.prepare('DELETE FROM turn_vectors').run();
    for (const index of indexes) {
      this.conn.db.exec(`DROP TABLE IF EXISTS ${tableOf(index)}`);
      this.conn.db.exec(`DROP TABLE IF EXISTS ${turnTableOf(index)}`);
      this.#create(index);
    }
    const items = this.conn.prepare('SELECT n, content, scope_key, kind FROM memory WHERE deleted = 0 ORDER BY n').iterate() as IterableIterator<
      Pick<MemoryRow, 'n' | 'content' | 'scope_key' | 'kind'>
    >;
    const live = [...items];
    for (const index of indexes) {
      const lookup = this.conn.prepare('SELECT vector FROM embedding_cache WHERE embedder_id = ? AND content_hash = ?');
      for (const item of live) {
        const row = lookup.get(index.embedder_id, contentHash(item.content)) as { vector: Buffer } | undefined;
        if (row && row.vector.length === index.dimensions * 4) this.add(index, item.n, fromBlob(row.vector), item.scope_key, item.kind);
      }
    }
    this.#rebuildTurns(indexes);
  }

  /** Re-creates the vectors of live turns of live sessions from the cache, as {@link rebuild} does for items. */
  #rebuildTurns(indexes: readonly VectorIndex[]): void {
    const turns = this.conn
      .prepare(
        'SELECT t.n, t.content, t.session_id, t.role FROM turns t WHERE t.deleted = 0 AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = t.session_id AND s.deleted = 0) ORDER BY t.n',
      )
      .all() as {
      n: number;
      content: string;
      session_id: string;
      role: string;
    }[];
    const lookup = this.conn.prepare('SELECT vector FROM embedding_cache WHERE embedder_id = ? AND content_hash = ?');
    for (const index of indexes) {
      for (const turn of turns) {
        const row = lookup.get(index.embedder_id, contentHash(turn.content)) as { vector: Buffer } | undefined;
        if (row && row.vector.length === index.dimensions * 4) this.addTurn(index, turn.n, fromBlob(row.vector), turn.session_id, turn.role);
      }
    }
  }

  #create(index: VectorIndex): void {
    this.conn.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${tableOf(index)} USING vec0(embedding float[${Math.trunc(index.dimensions)}] distance_metric=cosine, scope_key text, kind text)`,
    );
    this.ensureTurnTable(index);
  }

  /** Creates the index's turn-vector table when missing (an index made before turns had vectors has none). */
  ensureTurnTable(index: VectorIndex): void {
    this.conn.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${turnTableOf(index)} USING vec0(embedding float[${Math.trunc(index.dimensions)}] distance_metric=cosine, session_id text, role text)`,
    );
  }
}

/** The {@link VectorStore} of a SQLite backend. */
export class SqliteVectorStore implements VectorStore {
  /** Per index: every live item with `n <= mark` has a vector (valid for one projection generation). */
  readonly #marks = new Map<number, { generation: number; epoch: number; mark: number }>();

  constructor(
    private readonly conn: Connection,
    private readonly indexes: VectorIndexes,
  ) {}

  pending(embedderId: string, limit: number): MemoryItem[] {
    const take = Math.max(0, Math.trunc(limit));
    if (take === 0) return [];
    return this.conn.read(() => {
      const index = this.indexes.find(embedderId);
      if (!index) {
        const rows = this.conn.prepare('SELECT * FROM memory WHERE deleted = 0 ORDER BY n LIMIT ?').all(take) as MemoryRow[];
        return rows.map(memoryFromRow);
      }
      const row = this.conn.prepare('SELECT generation FROM projection_state WHERE id = 1').get() as { generation: number } | undefined;
      if (row === undefined) throw new CorruptionError('database', 0, `${this.conn.path} is damaged: the projection's state row is missing`);
      const generation = row.generation;
      const epoch = (this.conn.prepare('SELECT epoch FROM memory_epoch WHERE id = 1').get() as { epoch: number } | undefined)?.epoch ?? 0;
      const known = this.#marks.get(index.no);
      const from = known && known.generation === generation && known.epoch === epoch ? known.mark : 0;
      const maxN = (this.conn.prepare('SELECT max(n) AS n FROM memory').get() as { n: number | null }).n ?? 0;
      const rows = this.conn
        .prepare(
          `SELECT m.* FROM memory m WHERE m.n > ? AND m.n <= ? AND m.deleted = 0
             AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.index_no = ? AND v.item_n = m.n)
           ORDER BY m.n LIMIT ?`,
        )
        .all(from, maxN, index.no, take) as MemoryRow[];
      this.#marks.set(index.no, { generation, epoch, mark: rows.length === 0 ? maxN : rows[0]!.n - 1 });
      return rows.map(memoryFromRow);
    });
  }

  cached(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    return this.conn.read(() => this.indexes.cached(embedderId, contentHashes));
  }

  async put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): Promise<void> {
    if (entries.length === 0) return;
    await this.conn.exclusive(() =>
      this.conn.immediateWhenFree(() => {
        const index = this.indexes.ensure(embedderId, entries[0]!.vector.length);
        const lookup = this.conn.prepare('SELECT n, deleted, scope_key, kind, content FROM memory WHERE id = ?');
        for (const entry of entries) {
          if (entry.vector.length !== index.dimensions) {
            throw new ValidationError('vector', `expected ${index.dimensions} dimensions, got ${entry.vector.length}`);
          }
          const row = lookup.get(entry.id) as Pick<MemoryRow, 'n' | 'deleted' | 'scope_key' | 'kind' | 'content'> | undefined;
          if (holdsContent(row?.content, entry.contentHash)) this.indexes.cache(embedderId, entry.contentHash, entry.vector);
          if (row?.deleted !== 0 || this.indexes.has(index, row.n)) continue;
          this.indexes.add(index, row.n, entry.vector, row.scope_key, row.kind);
        }
      }),
    );
  }

  nearest(query: VectorQuery): Array<{ record: MemoryItem; similarity: number }> {
    const k = Math.min(Math.max(0, Math.trunc(query.k)), MAX_NEIGHBOURS);
    if (k === 0 || matchesNothing(query) || query.kinds?.length === 0) return [];
    return this.conn.read(() => {
      const index = this.indexes.find(query.embedderId);
      if (!index) return [];
      if (query.vector.length !== index.dimensions) {
        throw new ValidationError('vector', `expected ${index.dimensions} dimensions, got ${query.vector.length}`);
      }
      const kinds = query.kinds;
      // vec0 filters are conjunctions: exact scopes and a descendant range are two KNN reads, merged.
      const knn = (depth: number, scopeSql: string, scopeParams: readonly string[]): { n: number | bigint; distance: number | null }[] => {
        let sql = `SELECT rowid AS n, distance FROM ${tableOf(index)} WHERE embedding MATCH ? AND k = ?${scopeSql}`;
        const params: unknown[] = [query.vector, depth, ...scopeParams];
        if (kinds) {
          sql += ` AND kind IN (${kinds.map(() => '?').join(', ')})`;
          params.push(...kinds);
        }
        return this.conn.prepare(sql).all(...params) as { n: number | bigint; distance: number | null }[];
      };
      const scopes = query.scopes?.map(scopeKey);
      const neighbours = (depth: number): { n: number | bigint; distance: number | null }[] => {
        const hits =
          scopes === undefined ? knn(depth, '', []) : scopes.length === 0 ? [] : knn(depth, ` AND scope_key IN (${scopes.map(() => '?').join(', ')})`, scopes);
        if (query.scopes !== undefined && query.descendantsOf !== undefined) {
          const { from, to } = descendantKeyRange(query.descendantsOf);
          hits.push(...knn(depth, ' AND scope_key >= ? AND scope_key < ?', [from, to]));
        }
        return hits;
      };
      const filter = memoryRowFilter(query, 'm');
      // Expiry and metadata are checked on the memory rows after the search: while they
      // leave fewer than k, ask the index for more neighbours.
      for (let depth = k; ; depth = Math.min(depth * 4, MAX_NEIGHBOURS)) {
        const hits = neighbours(depth);
        if (hits.length === 0) return [];
        const rows = this.conn
          .prepare(`SELECT m.* FROM memory m WHERE m.n IN (SELECT value FROM json_each(?)) AND m.deleted = 0${filter.sql}`)
          .all(JSON.stringify(hits.map((h) => Number(h.n))), ...filter.params) as MemoryRow[];
        if (rows.length < k && hits.length >= depth && depth < MAX_NEIGHBOURS) continue;
        return ranked(hits, rows).slice(0, k);
      }
    });
  }
}

/** Joins neighbours with their memory rows, best first (ties by id). */
function ranked(
  hits: readonly { n: number | bigint; distance: number | null }[],
  rows: readonly MemoryRow[],
): Array<{ record: MemoryItem; similarity: number }> {
  const byN = new Map(rows.map((r) => [r.n, r]));
  const out: Array<{ record: MemoryItem; similarity: number }> = [];
  for (const hit of hits) {
    const row = byN.get(Number(hit.n));
    if (!row) continue;
    const similarity = hit.distance === null || !Number.isFinite(hit.distance) ? 0 : 1 - hit.distance;
    out.push({ record: memoryFromRow(row), similarity });
  }
  return out.sort((a, b) => b.similarity - a.similarity || (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0));
}
