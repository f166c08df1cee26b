/**
 * The embedder programs configure when the user names none, decided once for
 * the `agentstate` command and the MCP server: the offline static word-vector
 * embedder of `@agentstate/embeddings` (no download, no model server). With
 * it, recall with query text is hybrid and best first (docs/contract.md §4).
 * The provider also falls back to it for an explicit semantic or hybrid
 * recall when no embedder was configured.
 */
import type { Embedder } from '@agentstate/core';

/**
 * Creates the default embedder. The embeddings package is imported here,
 * on first use, so that a program that only writes or recalls lexically
 * never loads it; its word table loads on the first embedding.
 */
export async function createDefaultEmbedder(): Promise<Embedder> {
  const { createStaticEmbedder } = await import('@agentstate/embeddings');
  return createStaticEmbedder();
}
