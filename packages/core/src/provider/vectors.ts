/**
 * Keeping derived vectors up to date: embeddings are computed outside the
 * write transaction, cached by `(embedder id, content hash)`, and any item
 * still missing one (a crash between commit and embedding, a rebuild, a write
 * by another process) is caught up before a semantic recall.
 */
import { type Embedder, contentHash } from '../embedding/embedder.js';
import type { Embeddable, VectorStore } from '../write/backend.js';

/** Records embedded per call of the embedder. */
const BATCH = 256;

/**
 * {@link embedItems} for the records one mutation committed, however many:
 * the last version of each id, in calls of at most 256 records, so a batch
 * write costs the embedder a few calls rather than one per record.
 */
export async function embedCommitted<R extends Embeddable, Q>(embedder: Embedder, store: VectorStore<R, Q>, items: readonly R[]): Promise<void> {
  const latest = [...new Map(items.map((item) => [item.id, item])).values()];
  for (let i = 0; i < latest.length; i += BATCH) await embedItems(embedder, store, latest.slice(i, i + BATCH));
}

/** Embeds and stores vectors for `items` (memory items or turns), reusing cached vectors by content hash. */
export async function embedItems<R extends Embeddable, Q>(embedder: Embedder, store: VectorStore<R, Q>, items: readonly R[]): Promise<void> {
  if (items.length === 0) return;
  const hashes = items.map((item) => contentHash(item.content));
  const cached = await store.cached(embedder.id, hashes);
  const missing = new Map<string, string>();
  for (const [i, item] of items.entries()) if (!cached.has(hashes[i]!)) missing.set(hashes[i]!, item.content);
  if (missing.size > 0) {
    const vectors = await embedder.embed([...missing.values()]);
    for (const [i, hash] of [...missing.keys()].entries()) cached.set(hash, vectors[i]!);
  }
  await store.put(
    embedder.id,
    items.map((item, i) => ({ id: item.id, contentHash: hashes[i]!, vector: cached.get(hashes[i]!)! })),
  );
}

/** Embeds every live record of the store's target that has no vector yet for `embedder`. */
export async function catchUpVectors<R extends Embeddable, Q>(embedder: Embedder, store: VectorStore<R, Q>): Promise<void> {
  for (;;) {
    const pending = await store.pending(embedder.id, BATCH);
    if (pending.length === 0) return;
    await embedItems(embedder, store, pending);
    if (pending.length < BATCH) return;
  }
}
