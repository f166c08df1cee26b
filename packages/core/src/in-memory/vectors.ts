/** Brute-force vector storage for the in-memory backend. */
import { cosineSimilarity } from '../embedding/embedder.js';
import type { MemoryItem } from '../records/records.js';
import { compareStrings } from '../records/order.js';
import { scopeFilter } from './scope-filter.js';
import type { VectorQuery, VectorStore } from '../write/backend.js';
import type { InMemoryState } from './state.js';
import { memoryFilter } from './queries.js';

/** A {@link VectorStore} over an {@link InMemoryState}: exact cosine over every live item. */
export class InMemoryVectorStore implements VectorStore {
  /** embedder id → item id → vector. */
  readonly #vectors = new Map<string, Map<string, Float32Array>>();
  /** embedder id → content hash → vector. */
  readonly #cache = new Map<string, Map<string, Float32Array>>();

  constructor(private readonly state: InMemoryState) {}

  pending(embedderId: string, limit: number): MemoryItem[] {
    const have = this.#vectors.get(embedderId);
    const out: MemoryItem[] = [];
    for (const item of this.state.liveMemory.items) {
      if (!have?.has(item.id)) out.push(item);
      if (out.length >= limit) break;
    }
    return out;
  }

  cached(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    const cache = this.#cache.get(embedderId);
    const out = new Map<string, Float32Array>();
    for (const hash of contentHashes) {
      const v = cache?.get(hash);
      if (v) out.set(hash, v);
    }
    return out;
  }

  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): void {
    const vectors = mapFor(this.#vectors, embedderId);
    const cache = mapFor(this.#cache, embedderId);
    for (const e of entries) {
      cache.set(e.contentHash, e.vector);
      const item = this.state.memory.get(e.id);
      if (item && !item.deleted) vectors.set(e.id, e.vector);
    }
  }

  /** Drops an item's vectors (its tombstone was projected). */
  forget(id: string): void {
    for (const vectors of this.#vectors.values()) vectors.delete(id);
  }

  nearest(query: VectorQuery): Array<{ record: MemoryItem; similarity: number }> {
    const vectors = this.#vectors.get(query.embedderId);
    if (!vectors) return [];
    const inScope = scopeFilter(query);
    const passes = memoryFilter(query);
    const hits: Array<{ record: MemoryItem; similarity: number }> = [];
    for (const [id, vector] of vectors) {
      const item = this.state.memory.get(id);
      if (!item || item.deleted) continue;
      if (!inScope(item.scope)) continue;
      if (!passes(item)) continue;
      hits.push({ record: item, similarity: cosineSimilarity(query.vector, vector) });
    }
    hits.sort((a, b) => b.similarity - a.similarity || compareStrings(a.record.id, b.record.id));
    return hits.slice(0, query.k);
  }
}

function mapFor<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}
