/** Brute-force vector storage of turns for the in-memory backend (semantic transcript search). */
import { cosineSimilarity } from '../embedding/embedder.js';
import type { Turn } from '../records/records.js';
import { compareStrings } from '../records/order.js';
import type { TurnVectorQuery, VectorStore } from '../write/backend.js';
import { turnFilter } from './queries.js';
import type { InMemoryState } from './state.js';

/** A {@link VectorStore} of turns over an {@link InMemoryState}: exact cosine over every live turn of a live session. */
export class InMemoryTurnVectorStore implements VectorStore<Turn, TurnVectorQuery> {
  /** embedder id → turn id → vector. */
  readonly #vectors = new Map<string, Map<string, Float32Array>>();
  /** embedder id → content hash → vector. */
  readonly #cache = new Map<string, Map<string, Float32Array>>();

  constructor(private readonly state: InMemoryState) {}

  pending(embedderId: string, limit: number): Turn[] {
    const have = this.#vectors.get(embedderId);
    const out: Turn[] = [];
    for (const turn of this.state.liveTurns()) {
      if (out.length >= limit) break;
      if (!have?.has(turn.id)) out.push(turn);
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

function mapFor<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}
