/** Brute-force vector storage for the in-memory backend. */
import { cosineSimilarity, holdsContent } from '../embedding/embedder.js';
import type { MemoryItem } from '../records/records.js';
import { compareStrings } from '../records/order.js';
import { scopeFilter } from './scope-filter.js';
import type { VectorQuery, VectorStore } from '../write/backend.js';
import type { InMemoryState } from '../fold/state.js';
import type { InMemoryEmbeddingCache } from './embedding-cache.js';
import { mapFor } from './embedding-cache.js';
import { memoryFilter } from './queries.js';

/** A {@link VectorStore} over an {@link InMemoryState}: exact cosine over every live item. */
export class InMemoryVectorStore implements VectorStore {
  /** embedder id → item id → vector. */
  readonly #vectors = new Map<string, Map<string, Float32Array>>();
  constructor(
    private readonly state: InMemoryState,
    private readonly cache: InMemoryEmbeddingCache,
  ) {}

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
    return this.cache.get(embedderId, contentHashes);
  }

  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): void {
    const vectors = mapFor(this.#vectors, embedderId);
    for (const e of entries) {
      const item = this.state.memory.get(e.id);
      if (holdsContent(item?.content, e.contentHash)) this.cache.set(embedderId, e.contentHash, e.vector);
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
