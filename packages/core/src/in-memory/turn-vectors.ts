/** Brute-force vector storage of turns for the in-memory backend (semantic transcript search). */
import { cosineSimilarity, holdsContent } from '../embedding/embedder.js';
import type { Turn } from '../records/records.js';
import { compareStrings } from '../records/order.js';
import type { TurnVectorQuery, VectorStore } from '../write/backend.js';
import { turnFilter } from './queries.js';
import type { InMemoryState } from '../fold/state.js';
import type { InMemoryEmbeddingCache } from './embedding-cache.js';
import { mapFor } from './embedding-cache.js';

/** A {@link VectorStore} of turns over an {@link InMemoryState}: exact cosine over every live turn of a live session. */
export class InMemoryTurnVectorStore implements VectorStore<Turn, TurnVectorQuery> {
  /** embedder id → turn id → vector. */
  readonly #vectors = new Map<string, Map<string, Float32Array>>();
  constructor(
    private readonly state: InMemoryState,
    private readonly cache: InMemoryEmbeddingCache,
  ) {}

  pending(embedderId: string, limit: number): Turn[] {
    const have = this.#vectors.get(embedderId);
    const out: Turn[] = [];
    for (const turn of this.state.liveTurns()) {
      if (out.length >= limit) break;
      if (!have?.has(turn.id)) out.push(turn);
    }
    return out;
  }

  /** Drops a turn's vectors (a purge erased it). */
  forget(id: string): void {
    for (const vectors of this.#vectors.values()) vectors.delete(id);
  }

  cached(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    return this.cache.get(embedderId, contentHashes);
  }

  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): void {
    const vectors = mapFor(this.#vectors, embedderId);
    for (const e of entries) {
      if (holdsContent(this.state.turn(e.id)?.content, e.contentHash)) this.cache.set(embedderId, e.contentHash, e.vector);
      if (this.state.liveTurn(e.id)) vectors.set(e.id, e.vector);
    }
  }

  nearest(query: TurnVectorQuery): Array<{ record: Turn; similarity: number }> {
    const vectors = this.#vectors.get(query.embedderId);
    if (!vectors) return [];
    const wanted = turnFilter(query);
    const hits: Array<{ record: Turn; similarity: number }> = [];
    for (const [id, vector] of vectors) {
      const turn = this.state.liveTurn(id);
      if (!turn || !wanted(turn)) continue;
      hits.push({ record: turn, similarity: cosineSimilarity(query.vector, vector) });
    }
    hits.sort((a, b) => b.similarity - a.similarity || compareStrings(a.record.id, b.record.id));
    return hits.slice(0, query.k);
  }
}
