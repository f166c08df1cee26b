/**
 * The embedder behind hybrid recall: by default the offline static
 * word-vector embedder of `@agentstate/embeddings` (no download, no model
 * server; its table loads on the first recall or write that needs it).
 */
import type { Embedder } from '@agentstate/core';
import { createStaticEmbedder } from '@agentstate/embeddings';

/**
 * Which embedder a server uses: the offline one (hybrid recall by default),
 * none (lexical by default; the database still embeds on an explicit
 * semantic or hybrid recall), or one of your own.
 */
export type EmbedderChoice = 'static' | 'none' | Embedder;

/** The embedder for `choice` (default: `static`). */
export function loadEmbedder(choice: EmbedderChoice | undefined): Embedder | undefined {
  if (choice === 'none') return undefined;
  if (typeof choice === 'object') return choice;
  return createStaticEmbedder();
}
