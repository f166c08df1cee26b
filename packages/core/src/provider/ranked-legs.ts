/**
 * The semantic and hybrid legs that memory recall and transcript search
 * share (docs/contract.md §4, §6): embed the query, ask the vector store for
 * the nearest records, and for hybrid rank the lexical leg too and fuse
 * both legs' scores. Each caller pages and decorates the scored records.
 */
import type { Embedder } from '../embedding/embedder.js';
import { fuseLegs, isMatchScore, unitScore } from '../embedding/fusion.js';
import type { Embeddable, Scored, VectorStore } from '../write/backend.js';
import { catchUpVectors } from './vectors.js';

/** What one semantic or hybrid search asks of its caller. */
export interface RankedLegs<R extends Embeddable, Q> {
  mode: 'semantic' | 'hybrid';
  /** The query text, as the embedder reads it. */
  text: string;
  embedder: Embedder;
  vectors: VectorStore<R, Q>;
  fusionWeights: { lexical: number; semantic: number };
  /** The vector store's query for `k` neighbours of `vector`. */
  nearest: (embedderId: string, vector: Float32Array) => Q;
  /** The lexical leg of a hybrid search: at most the candidate depth, by relevance. */
  lexical: () => Promise<Scored<R>[]>;
}

/**
 * The records a semantic or hybrid search finds, each with its score in
 * (0, 1], unsorted: only records that match (a similarity above 0, or for
 * hybrid a match in either leg), never the nearest of the rest.
 */
export async function rankedLegs<R extends Embeddable, Q>(legs: RankedLegs<R, Q>): Promise<{ record: R; score: number }[]> {
  await catchUpVectors(legs.embedder, legs.vectors);
  const [queryVector] = await legs.embedder.embed([legs.text]);
  const near = await legs.vectors.nearest(legs.nearest(legs.embedder.id, queryVector!));
  if (legs.mode === 'semantic') {
    return near.map((n) => ({ record: n.record, score: unitScore(n.similarity) })).filter((n) => isMatchScore(n.score));
  }
  const lexical = await legs.lexical();
  const records = new Map<string, R>();
  for (const h of lexical) records.set(h.record.id, h.record);
  for (const n of near) records.set(n.record.id, n.record);
  const fused = fuseLegs(
    lexical.map((h) => ({ id: h.record.id, score: h.score })),
    near.map((n) => ({ id: n.record.id, score: n.similarity })),
    legs.fusionWeights,
  );
  return fused.map((f) => ({ record: records.get(f.id)!, score: f.score }));
}
