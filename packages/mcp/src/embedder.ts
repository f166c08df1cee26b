/**
 * The offline embedder behind hybrid recall: the static word-vector
 * embedder of `@agentstate/embeddings`, loaded only when that package is
 * installed (no download, no model server).
 */
import type { Embedder } from '@agentstate/core';
import { UsageError } from './usage-error.js';

/** Which embedder a server uses: the offline one, none (lexical recall only), or one of your own. */
export type EmbedderChoice = 'static' | 'none' | Embedder;

interface EmbeddingsModule {
  createStaticEmbedder(): Embedder;
}

/**
 * The embedder for `choice`. The default (`undefined`) is the static one
 * when `@agentstate/embeddings` is installed, else none; asking for
 * `static` explicitly without the package installed is an error.
 */
export async function loadEmbedder(choice: EmbedderChoice | undefined): Promise<Embedder | undefined> {
  if (choice === 'none') return undefined;
  if (typeof choice === 'object') return choice;
  const specifier = '@agentstate/embeddings';
  let m: EmbeddingsModule;
  try {
    m = (await import(specifier)) as EmbeddingsModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    if (choice === 'static') throw new UsageError('the static embedder needs the @agentstate/embeddings package, which is not installed');
    return undefined;
  }
  return m.createStaticEmbedder();
}
