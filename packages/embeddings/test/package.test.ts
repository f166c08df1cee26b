// Imports the built package through its `exports`, the way a user does.
import { cosineSimilarity, type Embedder } from '@agentstate/core';
import * as api from '@agentstate/embeddings';
import { describe, expect, it } from 'vitest';

describe('@agentstate/embeddings as published', () => {
  it('exports exactly its public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'EmbeddingError',
      'EmbeddingHttpError',
      'EmbeddingNetworkError',
      'EmbeddingResponseError',
      'EmbeddingTimeoutError',
      'STATIC_EMBEDDER_ID',
      'STATIC_SIMILARITY_THRESHOLD',
      'TableFormatError',
      'createOpenAIEmbedder',
      'createStaticEmbedder',
      'isEmbeddingError',
    ]);
  });

  it('embeds offline from the built files and their data', async () => {
    const embedder: Embedder = api.createStaticEmbedder();
    const [a, b] = await embedder.embed(['the user prefers dark mode', 'user likes a dark theme']);
    expect(cosineSimilarity(a!, b!)).toBeGreaterThan(embedder.similarityThreshold!);
  });
});
