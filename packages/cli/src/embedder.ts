/**
 * The offline embedder behind hybrid and semantic recall, loaded only when
 * a recall needs it: its word table is a few MB, and no other command
 * should pay for it.
 */
import type { Embedder } from '@agentstate/core';

let loaded: Promise<Embedder | undefined> | undefined;

/** The static embedder of `@agentstate/embeddings`, or undefined when it is not installed. */
export function offlineEmbedder(): Promise<Embedder | undefined> {
  loaded ??= import('@agentstate/embeddings').then(
    (m) => m.createStaticEmbedder(),
    () => undefined,
  );
  return loaded;
}
