/**
 * LangChain embeddings as an agentstate embedder, so the `index` of an
 * `InMemoryStore` (`{ dims, embeddings, fields }`) carries over unchanged:
 * the provider embeds each item's content and each query with them.
 */
import type { Embedder } from '@agentstate/core';
import { ValidationError } from '@agentstate/core';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';

/**
 * An {@link Embedder} over LangChain `embeddings` returning `dims` numbers a
 * text. Its `id` (part of every cached vector's key) is `id` when given,
 * else `langchain:` with the class name, the `model` (or `modelName`) when
 * the embeddings have one, and `dims`: give an `id` when two settings of one
 * class could share those, or vectors of one would be reused for the other.
 */
export function langchainEmbedder(embeddings: EmbeddingsInterface, dims: number, id?: string): Embedder {
  if (!Number.isSafeInteger(dims) || dims < 1) throw new ValidationError('index.dims', 'must be a positive integer');
  const named = embeddings as unknown as { model?: unknown; modelName?: unknown };
  const model = typeof named.model === 'string' ? named.model : typeof named.modelName === 'string' ? named.modelName : '';
  return {
    id: id ?? ['langchain', embeddings.constructor.name, model, String(dims)].filter((part) => part !== '').join(':'),
    dimensions: dims,
    async embed(texts) {
      // Queries too: vectors are cached by text, so one text must have one vector.
      const vectors = await embeddings.embedDocuments([...texts]);
      return vectors.map((vector, i) => {
        if (vector.length !== dims) throw new ValidationError('index.dims', `the embeddings returned ${vector.length} numbers for text ${i}, not ${dims}`);
        return Float32Array.from(vector);
      });
    },
  };
}
