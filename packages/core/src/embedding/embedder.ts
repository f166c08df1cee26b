/**
 * Semantic recall's seam (docs/contract.md §6). An embedder turns text into vectors;
 * vectors are derived data, never part of event payloads, cached by
 * `(embedder id, content hash)` and re-created on rebuild.
 */
import { hash } from 'node:crypto';
import { compareStrings } from '../records/order.js';

/** Turns text into fixed-size vectors. */
export interface Embedder {
  /** Stable id of the model and its settings; part of every cache key. */
  readonly id: string;
  /** Length of every vector it returns. */
  readonly dimensions: number;
  /**
   * The cosine similarity above which two texts count as close on this
   * model's scale (static word vectors and large models differ a lot): a
   * sensible `minScore` for semantic recall with it. Advice only: recall
   * never applies it; `minScore` alone cuts hits (docs/contract.md §6).
   */
  readonly similarityThreshold?: number;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /**
   * Optional: words related to the query's tokens (synonyms and near senses
   * from a dictionary the embedder ships). Hybrid recall and search also
   * match them in their lexical leg when its tokens may match any (`match`
   * unset or `'any'`), so a query word finds an item that uses a synonym
   * (docs/contract.md §6). Never used by lexical or semantic mode.
   */
  relatedTokens?(tokens: readonly string[]): Promise<readonly string[]>;
}

/** The hash embeddings are cached by: SHA-256 of the content, hex. */
export function contentHash(content: string): string {
  // One call: a streaming hash's three native calls and its object cost more than the hash of an event's text.
  return hash('sha256', content, 'hex');
}

/**
 * Whether a vector computed for the content of `hash` may be cached for a record that now holds
 * `content` (undefined: no such record): only while it still holds that content. A purge committed
 * since the content was handed out for embedding erased it, and its vector is not cached again
 * (docs/contract.md §7, "Purge"). A backend asks inside the transaction that caches.
 */
export function holdsContent(content: string | undefined, hash: string): boolean {
  return content !== undefined && contentHash(content) === hash;
}

/** Cosine similarity of two vectors of equal length; 0 when either is zero. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Vector search hits nearest first, ties by record id, at most `k` of them: the order of every backend's `nearest`. */
export function nearestFirst<T extends { record: { id: string }; similarity: number }>(hits: T[], k = hits.length): T[] {
  return hits.sort((a, b) => b.similarity - a.similarity || compareStrings(a.record.id, b.record.id)).slice(0, k);
}
