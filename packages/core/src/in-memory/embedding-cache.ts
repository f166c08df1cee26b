/**
 * The in-memory embedding cache: vectors by `(embedder id, content hash)`,
 * shared by the memory and turn vector stores, as the SQLite backend's
 * `embedding_cache` is, so a text embedded for one target is not embedded
 * again for the other.
 */
import { entryFor } from '../fold/state.js';

/** Vectors by embedder id and content hash. */
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
