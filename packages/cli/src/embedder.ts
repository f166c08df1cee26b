/**
 * The offline embedder behind hybrid and semantic recall, loaded only when
 * a recall needs it (its word table is a few MB).
 */
import type { Embedder } from '@agentstate/core';

interface EmbeddingsModule {
  createStaticEmbedder(): Embedder;
}

let loaded: Promise<Embedder | undefined> | undefined;

/** The static embedder of `@agentstate/embeddings`, or undefined when it is not installed. */
export function offlineEmbedder(): Promise<Embedder | undefined> {
  const specifier = '@agentstate/embeddings';
  loaded ??= (import(specifier) as Promise<EmbeddingsModule>).then(
    (m) => m.createStaticEmbedder(),
    () => undefined,
  );
  return loaded;
}
