/**
 * Recall (docs/contract.md §4, §6): lexical, semantic or hybrid. Hybrid fuses the lexical
 * and the vector ranking with reciprocal rank fusion, which needs no
 * calibration between bm25-style scores and cosine similarities.
 */
import type { Embedder } from '../embedding/embedder.js';
import { reciprocalRankFusion } from '../embedding/fusion.js';
import { ValidationError } from '../errors.js';
import { selectScopes } from './scope-selection.js';
import { queryTokens } from '../matching/lexical.js';
import { copyMemoryItem } from '../records/copy.js';
import type { RecallOptions } from '../records/inputs.js';
import { DEFAULT_RECALL_LIMIT, parseInput, recallOptionsSchema } from '../records/inputs.js';
import { compareMemoryNewestFirst } from '../records/order.js';
import type { MemoryItem } from '../records/records.js';
import type { StateQueries, VectorStore } from '../write/backend.js';
import type { Instant } from '../time/instant.js';
import { DEFAULT_SIMILARITY_THRESHOLD } from './options.js';
import { defaultRecallMode, defaultRecallOrder } from './recall-defaults.js';
import type { RecallHit } from './types.js';
import { catchUpVectors } from './vectors.js';

/**
 * The lexical leg of hybrid recall ranks by BM25 over any matching token:
 * questions in natural language rarely contain every word of the fact they
 * ask about, and the fusion already demotes weak single-word matches.
 */
export const HYBRID_LEXICAL_MATCH = 'any';

/** How deep each ranker looks, relative to the requested limit, before fusion. */
const CANDIDATE_FACTOR = 4;
const MIN_CANDIDATES = 50;

/** How many candidates each ranker of a semantic or hybrid recall (or search) fetches for `limit` hits. */
export function candidateDepth(limit: number): number {
  return Math.max(limit * CANDIDATE_FACTOR, MIN_CANDIDATES);
}

/** What recall needs from its provider. */
export interface RecallContext {
  queries: StateQueries;
  vectors: VectorStore | undefined;
  /** The configured embedder: makes hybrid the default mode. */
  embedder: Embedder | undefined;
  /** Loads the fallback embedder for explicit semantic or hybrid recall. */
  defaultEmbedder: (() => Promise<Embedder>) | undefined;
  /** Overrides the embedder's own threshold. */
  similarityThreshold: number | undefined;
  fusionWeights: { lexical: number; semantic: number };
  /** The provider clock as an instant: items expired at it are left out. */
  now: () => Instant;
}

/** Runs one recall. */
export async function recall(ctx: RecallContext, options: RecallOptions): Promise<RecallHit[]> {
  const o = parseInput(recallOptionsSchema, options);
  const tokens = queryTokens(o.query);
  if (tokens === null) return [];
  const limit = o.limit ?? DEFAULT_RECALL_LIMIT;
  const scopes = selectScopes(o);
  const filter = { kinds: o.kinds, where: o.where, now: ctx.now() };
  const mode = o.mode ?? defaultRecallMode(ctx.embedder !== undefined && ctx.vectors !== undefined);
  if (mode !== 'lexical' && (ctx.vectors === undefined || (ctx.embedder === undefined && ctx.defaultEmbedder === undefined))) {
    throw new ValidationError('mode', `${mode} recall needs a provider configured with an embedder`);
  }
  const order = o.order ?? defaultRecallOrder(mode, o.query);
  const minScore = o.minScore ?? 0;
  const finish = (hits: RecallHit[]): RecallHit[] => {
    const kept = hits.filter((h) => h.score >= minScore);
    if (order === 'recent') kept.sort(compareMemoryNewestFirst);
    return kept.slice(0, limit);
  };

  // Without query text there is nothing to compare meaning with: every mode lists.
  if (mode === 'lexical' || tokens.length === 0) {
    const hits = await ctx.queries.searchMemory({ tokens, ...scopes, ...filter, limit: minScore > 0 ? 0 : limit, order, match: o.match ?? 'all' });
    return finish(hits.map((h) => ({ ...copyMemoryItem(h.record), score: order === 'recent' ? 1 : h.score })));
  }

  const embedder = ctx.embedder ?? (await ctx.defaultEmbedder!());
  const vectors = ctx.vectors!;
  const threshold = ctx.similarityThreshold ?? embedder.similarityThreshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  await catchUpVectors(embedder, vectors);
  const [queryVector] = await embedder.embed([o.query!]);
  const depth = candidateDepth(limit);
  const near = (await vectors.nearest({ embedderId: embedder.id, vector: queryVector!, k: depth, ...scopes, ...filter })).filter(
    (n) => n.similarity >= threshold,
  );
  if (mode === 'semantic') {
    return finish(near.map((n) => ({ ...copyMemoryItem(n.record), score: Math.max(0, Math.min(1, n.similarity)) })));
  }

  const lexical = await ctx.queries.searchMemory({ tokens, ...scopes, ...filter, limit: depth, order: 'relevance', match: o.match ?? HYBRID_LEXICAL_MATCH });
  const records = new Map<string, MemoryItem>();
  for (const h of lexical) records.set(h.record.id, h.record);
  for (const n of near) records.set(n.record.id, n.record);
  const fused = reciprocalRankFusion([lexical.map((h) => h.record.id), near.map((n) => n.record.id)], {
    weights: [ctx.fusionWeights.lexical, ctx.fusionWeights.semantic],
  });
  return finish(fused.map((f) => ({ ...copyMemoryItem(records.get(f.id)!), score: f.score })));
}
