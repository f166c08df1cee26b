/** Brute-force vector storage for the in-memory backend: memory items, and turns for semantic transcript search. */
import { cosineSimilarity, holdsContent, nearestFirst } from '../embedding/embedder.js';
import type { MemoryItem, Turn } from '../records/records.js';
import type { Embeddable, TurnVectorQuery, VectorQuery, VectorStore } from '../write/backend.js';
import type { InMemoryState } from '../fold/state.js';
import { entryFor } from '../map-entry.js';
import { memoryFilter, turnFilter } from './queries.js';

/** How a store reads its target's records from the state. */
interface Target<R extends Embeddable, Q> {
  /** Every live record, in the order `pending` offers them. */
  live(): Iterable<R>;
  /** The record with this id when it is live. */
  liveRecord(id: string): R | undefined;
  /** The record with this id, tombstones included: its content decides whether a vector is cached. */
  record(id: string): R | undefined;
  /** The predicate of a query's filters. */
  filter(query: Q): (record: R) => boolean;
}

/** A {@link VectorStore} over an {@link InMemoryState}: exact cosine over every live record of its target. */
export class InMemoryVectorStore<R extends Embeddable, Q extends { embedderId: string; vector: Float32Array; k: number }> implements VectorStore<R, Q> {
  /** embedder id → record id → vector. */
  readonly #vectors = new Map<string, Map<string, Float32Array>>();
  constructor(
    private readonly target: Target<R, Q>,
    private readonly cache: InMemoryEmbeddingCache,
  ) {}

  pending(embedderId: string, limit: number): R[] {
    const have = this.#vectors.get(embedderId);
    const out: R[] = [];
    for (const record of this.target.live()) {
      if (out.length >= limit) break;
      if (!have?.has(record.id)) out.push(record);
    }
    return out;
  }

  cached(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    return this.cache.get(embedderId, contentHashes);
  }

  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): void {
    const vectors = entryFor(this.#vectors, embedderId, () => new Map());
    for (const e of entries) {
      if (holdsContent(this.target.record(e.id)?.content, e.contentHash)) this.cache.set(embedderId, e.contentHash, e.vector);
      if (this.target.liveRecord(e.id)) vectors.set(e.id, e.vector);
    }
  }

  /** Drops a record's vectors (its tombstone was projected, or a purge erased it). */
  forget(id: string): void {
    for (const vectors of this.#vectors.values()) vectors.delete(id);
  }

  nearest(query: Q): Array<{ record: R; similarity: number }> {
    const vectors = this.#vectors.get(query.embedderId);
    if (!vectors) return [];
    const wanted = this.target.filter(query);
    const hits: Array<{ record: R; similarity: number }> = [];
    for (const [id, vector] of vectors) {
      const record = this.target.liveRecord(id);
      if (record && wanted(record)) hits.push({ record, similarity: cosineSimilarity(query.vector, vector) });
    }
    return nearestFirst(hits, query.k);
  }
}

/** The vector store of memory items: live items, in scope and passing the query's filters. */
export function memoryVectors(state: InMemoryState, cache: InMemoryEmbeddingCache): InMemoryVectorStore<MemoryItem, VectorQuery> {
  const liveRecord = (id: string): MemoryItem | undefined => {
    const item = state.memory.get(id);
    return item && !item.deleted ? item : undefined;
  };
  return new InMemoryVectorStore<MemoryItem, VectorQuery>(
    { live: () => state.liveMemory.items, liveRecord, record: (id) => state.memory.get(id), filter: memoryFilter },
    cache,
  );
}

/** The vector store of turns: live turns of live sessions, passing the query's filters. */
export function turnVectors(state: InMemoryState, cache: InMemoryEmbeddingCache): InMemoryVectorStore<Turn, TurnVectorQuery> {
  return new InMemoryVectorStore<Turn, TurnVectorQuery>(
    { live: () => state.liveTurns(), liveRecord: (id) => state.liveTurn(id), record: (id) => state.turn(id), filter: turnFilter },
    cache,
  );
}

/**
 * The in-memory embedding cache: vectors by `(embedder id, content hash)`,
 * shared by the memory and turn vector stores, as the SQLite backend's
 * `embedding_cache` is, so a text embedded for one target is not embedded
 * again for the other.
 */
export class InMemoryEmbeddingCache {
  /** embedder id → content hash → vector. */
  readonly #vectors = new Map<string, Map<string, Float32Array>>();

  /** Cached vectors of the hashes that have one. */
  get(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    const cache = this.#vectors.get(embedderId);
    const out = new Map<string, Float32Array>();
    for (const hash of contentHashes) {
      const v = cache?.get(hash);
      if (v) out.set(hash, v);
    }
    return out;
  }

  /** Drops the entries of these content hashes, for every embedder (a purge erased their text). */
  forget(contentHashes: Iterable<string>): void {
    for (const hash of contentHashes) for (const cache of this.#vectors.values()) cache.delete(hash);
  }

  /** Keeps `vector` as the embedding of `contentHash` by `embedderId`. */
  set(embedderId: string, contentHash: string, vector: Float32Array): void {
    entryFor(this.#vectors, embedderId, () => new Map()).set(contentHash, vector);
  }
}
