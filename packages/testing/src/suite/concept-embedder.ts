/**
 * A tiny deterministic embedder for the semantic checks: words of one concept (car, automobile,
 * vehicle…) share a dimension, so texts that mean the same without sharing a word are close; other
 * words spread over the remaining dimensions by a hash of their letters.
 */
import { type Embedder, tokenize } from '@agentstate/core';

/** The concepts, each the words that share its dimension. */
const CONCEPTS = ['car automobile vehicle sedan', 'database sqlite postgres storage', 'deploy release ship rollout', 'cat kitten feline'];
const conceptOf = new Map(CONCEPTS.flatMap((words, i) => words.split(' ').map((word) => [word, i] as const)));
const DIMENSIONS = 16;

function dimensionOf(word: string): number {
  const concept = conceptOf.get(word);
  if (concept !== undefined) return concept;
  let hash = 0;
  for (const ch of word) hash = (hash * 31 + ch.codePointAt(0)!) % 1_000_003;
  return CONCEPTS.length + (hash % (DIMENSIONS - CONCEPTS.length));
}

/** An {@link Embedder} that knows a handful of synonyms; similarity threshold 0.5. */
export function conceptEmbedder(): Embedder {
  return {
    id: 'agentstate-testing/concepts@1',
    dimensions: DIMENSIONS,
    similarityThreshold: 0.5,
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Float32Array(DIMENSIONS);
        for (const word of tokenize(text)) vector[dimensionOf(word)]! += 1;
        return vector;
      });
    },
  };
}
