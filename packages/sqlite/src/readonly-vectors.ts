/**
 * Semantic recall on a database opened read-only. Recall first embeds the
 * live items that have no stored vector yet (items written without an
 * embedder); a read-only database cannot store them, so they are kept in
 * memory for the life of the provider and searched beside the stored ones.
 * Leaving them out would silently drop those items from every answer.
 */
import type { MemoryItem } from '@agentstate/core';
import type { VectorQuery, VectorStore, MemoryRow } from '@agentstate/core/backend';
import { memoryFromRow } from '@agentstate/core/backend';
import { ValidationError } from '@agentstate/core';
import type { Connection } from './connection.js';
import { scopeKeyFilter } from './scope-sql.js';
import type { SqliteVectorStore, VectorIndexes } from './vectors.js';
import { MAX_NEIGHBOURS } from './vectors.js';
import { memoryRowFilter } from './metadata.js';

/** A vector held in memory, with what a filtered search needs. */
interface HeldVector {
  n: number;
  vector: Float32Array;
  scopeKey: string;
  kind: string;
}

/** One embedder's vectors held in memory, and how far `pending` has handed out items. */
interface Held {
  after: number;
  dimensions: number;
  vectors: Map<number, HeldVector>;
}

/** The cosine similarity of two vectors of equal length (0 when either is zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The {@link VectorStore} of a read-only SQLite backend: stored vectors, plus the missing ones in memory. */
export class ReadOnlyVectorStore implements VectorStore {
  readonly #held = new Map<string, Held>();

  constructor(
    private readonly conn: Connection,
    private readonly indexes: VectorIndexes,
    private readonly stored: SqliteVectorStore,
  ) {}

  #heldFor(embedderId: string): Held {
    let held = this.#held.get(embedderId);
    if (!held) {
      held = { after: 0, dimensions: this.indexes.find(embedderId)?.dimensions ?? 0, vectors: new Map() };
      this.#held.set(embedderId, held);
    }
    return held;
  }

  pending(embedderId: string, limit: number): MemoryItem[] {
    const take = Math.max(0, Math.trunc(limit));
    if (take === 0) return [];
    const held = this.#heldFor(embedderId);
    return this.conn.read(() => {
      const index = this.indexes.find(embedderId);
      const unstored = index ? 'AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.index_no = ? AND v.item_n = m.n)' : '';
      const params: unknown[] = index ? [held.after, index.no, take] : [held.after, take];
      const rows = this.conn.prepare(`SELECT m.* FROM memory m WHERE m.n > ? AND m.deleted = 0 ${unstored} ORDER BY m.n LIMIT ?`).all(...params) as MemoryRow[];
      // Everything handed out is embedded and put before the next call.
      if (rows.length > 0) held.after = rows[rows.length - 1]!.n;
      return rows.map(memoryFromRow);
    });
  }

  cached(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    return this.stored.cached(embedderId, contentHashes);
  }

  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): void {
    if (entries.length === 0) return;
    const held = this.#heldFor(embedderId);
    if (held.dimensions === 0) held.dimensions = entries[0]!.vector.length;
    this.conn.read(() => {
      const index = this.indexes.find(embedderId);
      const lookup = this.conn.prepare('SELECT n, deleted, scope_key, kind FROM memory WHERE id = ?');
      for (const entry of entries) {
        if (entry.vector.length !== held.dimensions) {
          throw new ValidationError('vector', `expected ${held.dimensions} dimensions, got ${entry.vector.length}`);
        }
        const row = lookup.get(entry.id) as Pick<MemoryRow, 'n' | 'deleted' | 'scope_key' | 'kind'> | undefined;
        if (row?.deleted !== 0 || (index && this.indexes.has(index, row.n))) continue;
        held.vectors.set(row.n, { n: row.n, vector: entry.vector, scopeKey: row.scope_key, kind: row.kind });
      }
    });
  }

  nearest(query: VectorQuery): Array<{ record: MemoryItem; similarity: number }> {
    const k = Math.min(Math.max(0, Math.trunc(query.k)), MAX_NEIGHBOURS);
    const stored = this.stored.nearest(query);
    const held = this.#held.get(query.embedderId);
    if (k === 0 || !held || held.vectors.size === 0) return stored;
    if (query.vector.length !== held.dimensions) {
      throw new ValidationError('vector', `expected ${held.dimensions} dimensions, got ${query.vector.length}`);
    }
    const inScope = scopeKeyFilter(query);
    const kinds = query.kinds ? new Set(query.kinds) : undefined;
    const candidates = [...held.vectors.values()]
      .filter((v) => inScope(v.scopeKey) && (!kinds || kinds.has(v.kind)))
      .map((v) => ({ n: v.n, similarity: cosine(query.vector, v.vector) }))
      .sort((a, b) => b.similarity - a.similarity);
    // Expiry and metadata are checked on the rows before the cut at k, as the stored search does.
    const filter = memoryRowFilter(query, 'm');
    const rows = this.conn.read(
      () =>
        this.conn
          .prepare(`SELECT m.* FROM memory m WHERE m.n IN (SELECT value FROM json_each(?)) AND m.deleted = 0${filter.sql}`)
          .all(JSON.stringify(candidates.map((c) => c.n)), ...filter.params) as MemoryRow[],
    );
    const byN = new Map(rows.map((r) => [r.n, r]));
    const fromMemory = candidates
      .flatMap((c) => {
        const row = byN.get(c.n);
        return row ? [{ record: memoryFromRow(row), similarity: c.similarity }] : [];
      })
      .slice(0, k);
    return [...stored, ...fromMemory]
      .sort((a, b) => b.similarity - a.similarity || (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0))
      .slice(0, k);
  }
}
