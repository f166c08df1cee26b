/**
 * The embedder behind hybrid recall: by default the backend's
 * (`createDefaultEmbedder` of `@agentstate/sqlite`, the offline static
 * embedder the `agentstate` command uses too; its table loads on the first
 * recall or write that needs it).
 */
import type { Embedder } from '@agentstate/core';
import { createDefaultEmbedder } from '@agentstate/sqlite';

/**
 * Which embedder a server uses: the offline one (hybrid recall by default),
 * none (lexical by default; the database still embeds on an explicit
 * semantic or hybrid recall), or one of your own.
 */
export type EmbedderChoice = 'static' | 'none' | Embedder;

/** The embedder for `choice` (default: `static`). */
export async function loadEmbedder(choice: EmbedderChoice | undefined): Promise<Embedder | undefined> {
  if (choice === 'none') return undefined;
  if (typeof choice === 'object') return choice;
  return createDefaultEmbedder();
}
