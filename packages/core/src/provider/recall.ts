/**
 * Recall (docs/contract.md §4, §6): lexical, semantic or hybrid. Every hit
 * scores in [0, 1] and `minScore` alone cuts hits. Hybrid combines each
 * item's squashed BM25 score and its clamped cosine similarity
 * (`combineScores`), so a hybrid score says how strongly each leg found it.
 */
import type { Embedder } from '../embedding/embedder.js';
import { ValidationError } from '../errors.js';
import { selectScopes } from './scope-selection.js';
import { queryTokens } from '../matching/lexical.js';
import { copyMemoryItem } from '../records/copy.js';
import type { RecallOptions } from '../records/inputs.js';
import { DEFAULT_RECALL_LIMIT, parseInput, recallOptionsSchema } from '../records/inputs.js';
import type { StateQueries, VectorStore } from '../write/backend.js';
import type { Instant } from '../time/instant.js';
import { defaultRecallMode, defaultRecallOrder } from './recall-defaults.js';
import type { RecallHit } from './types.js';
import type { Page, Pager } from '../paging/cursor.js';
import { NUMBER_DESC, openPager, TEXT_DESC, toKeyset, toPage } from '../paging/cursor.js';
import { rankedLegs } from './ranked-legs.js';

/**
 * The lexical leg of hybrid recall ranks by BM25 over any matching token:
 * questions in natural language rarely contain every word of the fact they
 * ask about, and a weak single-word match has a low BM25 score.
 */
export const HYBRID_LEXICAL_MATCH = 'any';

/**
 * The tokens of hybrid's lexical leg: the query's, plus the embedder's
 * related words when the leg matches any token (with `match: 'all'` an added
 * synonym would have to match too, so none are added).
 */
export async function lexicalLegTokens(embedder: Embedder, tokens: readonly string[], match: 'all' | 'any' | undefined): Promise<string[]> {
  if ((match ?? HYBRID_LEXICAL_MATCH) !== 'any' || embedder.relatedTokens === undefined || tokens.length === 0) return [...tokens];
  const related = queryTokens((await embedder.relatedTokens(tokens)).join(' ')) ?? [];
  return [...new Set([...tokens, ...related])];
}

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
  fusionWeights: { lexical: number; semantic: number };
  /** The provider clock as an instant: items expired at it are left out. */
  now: () => Instant;
}

const NEWEST_FIRST = [TEXT_DESC, TEXT_DESC];
const BEST_FIRST = [NUMBER_DESC, TEXT_DESC, TEXT_DESC];

/** Runs one recall. */
export async function recall(ctx: RecallContext, options: RecallOptions): Promise<Page<RecallHit>> {
  const o = parseInput(recallOptionsSchema, options);
  const { cursor, limit: _limit, ...query } = o;
  const tokens = queryTokens(o.query);
  const limit = o.limit ?? DEFAULT_RECALL_LIMIT;
  const scopes = selectScopes(o);
  const filter = { kinds: o.kinds, where: o.where, now: ctx.now() };
  const mode = o.mode ?? defaultRecallMode(ctx.embedder !== undefined && ctx.vectors !== undefined);
  if (mode !== 'lexical' && (ctx.vectors === undefined || (ctx.embedder === undefined && ctx.defaultEmbedder === undefined))) {
    throw new ValidationError('mode', `${mode} recall needs a provider configured with an embedder`);
  }
  const order = o.order ?? defaultRecallOrder(mode, o.query);
  const minScore = o.minScore ?? 0;
  const relevance = order === 'relevance';
  // The cursor is bound to the resolved mode and order, so a page never resumes another ranking.
  const pager: Pager<RecallHit> = openPager(
    {
      method: 'memory.recall',
      query: { ...query, mode, order },
      order: relevance ? BEST_FIRST : NEWEST_FIRST,
      key: (h) => (relevance ? [h.score, h.createdAt, h.id] : [h.createdAt, h.id]),
    },
    cursor,
  );
  if (tokens === null) return toPage([], undefined);
  const finish = (hits: RecallHit[], keyset: boolean): Page<RecallHit> => {
    const kept = hits.filter((h) => h.score >= minScore);
    kept.sort(pager.compare);
    return pager.page((keyset ? kept.filter((h) => pager.isAfter(h)) : kept).slice(0, limit + 1), limit);
  };

  // Without query text there is nothing to compare meaning with: every mode lists.
  if (mode === 'lexical' || tokens.length === 0) {
    const after = toKeyset(pager.after);
    const hits = await ctx.queries.searchMemory({ tokens, ...scopes, ...filter, limit: minScore > 0 ? 0 : limit + 1, order, match: o.match ?? 'all', after });
    return finish(
      hits.map((h) => ({ ...copyMemoryItem(h.record), score: order === 'recent' ? 1 : h.score })),
      false,
    );
  }

  const embedder = ctx.embedder ?? (await ctx.defaultEmbedder!());
  // Rankers look deep enough to reach past every page served so far.
  const depth = candidateDepth(pager.served + limit + 1);
  const found = await rankedLegs({
    mode,
    text: o.query!,
    embedder,
    vectors: ctx.vectors!,
    fusionWeights: ctx.fusionWeights,
    nearest: (embedderId, vector) => ({ embedderId, vector, k: depth, ...scopes, ...filter }),
    lexical: async () =>
      ctx.queries.searchMemory({
        tokens: await lexicalLegTokens(embedder, tokens, o.match),
        ...scopes,
        ...filter,
        limit: depth,
        order: 'relevance',
        match: o.match ?? HYBRID_LEXICAL_MATCH,
      }),
  });
  return finish(
    found.map((f) => ({ ...copyMemoryItem(f.record), score: f.score })),
    true,
  );
}
