/**
 * The one ranking pipeline behind memory recall and transcript search
 * (docs/contract.md §4, §6): both resolve the same default mode and order,
 * match with the same lexical matcher, look as deep for candidates, score
 * in [0, 1] the same way, cut by `minScore` alone and page by the same keyset
 * (score, createdAt, id) best first for relevance, (createdAt, id) newest
 * first otherwise. A lexical ranking is the backend's; a semantic one the
 * vector store's (similarity clamped into [0, 1]); a hybrid one fuses both
 * legs' scores (`combineScores`), so a hybrid score says how strongly each
 * leg found the record. Each caller narrows the search and decorates the hits.
 */
import type { Embedder } from '../embedding/embedder.js';
import { fuseLegs, isMatchScore, unitScore } from '../embedding/fusion.js';
import { ValidationError } from '../errors.js';
import { type TokenMatch, queryTokens } from '../matching/lexical.js';
import { type Page, type Pager, NUMBER_DESC, openPager, TEXT_DESC, toKeyset, toPage } from '../paging/cursor.js';
import { DEFAULT_RECALL_LIMIT } from '../records/inputs.js';
import type { Awaitable, Embeddable, Keyset, Scored, VectorStore } from '../write/backend.js';
import { type RecallMode, type RecallOrder, defaultRecallMode, defaultRecallOrder } from './recall-defaults.js';
import { catchUpVectors } from './vectors.js';

/**
 * The lexical leg of hybrid ranking ranks by BM25 over any matching token:
 * questions in natural language rarely contain every word of the fact they
 * ask about, and a weak single-word match has a low BM25 score.
 */
const HYBRID_LEXICAL_MATCH = 'any';

/** How deep each ranker looks, relative to the hits wanted, before fusion. */
const CANDIDATE_FACTOR = 4;
const MIN_CANDIDATES = 50;

const NEWEST_FIRST = [TEXT_DESC, TEXT_DESC];
const BEST_FIRST = [NUMBER_DESC, TEXT_DESC, TEXT_DESC];

/** What a ranked search needs from its provider. */
export interface RankingContext<R extends Embeddable, Q> {
  vectors: VectorStore<R, Q> | undefined;
  /** The configured embedder: makes hybrid the default mode. */
  embedder: Embedder | undefined;
  /** Loads the fallback embedder for an explicit semantic or hybrid ranking. */
  defaultEmbedder: (() => Promise<Embedder>) | undefined;
  fusionWeights: { lexical: number; semantic: number };
}

/** The options every ranked search takes, already validated by the caller's schema. */
export interface RankingOptions {
  query?: string | undefined;
  mode?: RecallMode | undefined;
  order?: RecallOrder | undefined;
  match?: TokenMatch | undefined;
  minScore?: number | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** The lexical query a ranked search hands its caller's backend, beside the caller's filter. */
export interface RankedLexicalQuery {
  tokens: string[];
  limit: number;
  order: RecallOrder;
  match: TokenMatch;
  after?: Keyset | undefined;
}

/** One ranked search: what it ranks and how its caller narrows it. */
export interface RankedSearch<R extends Embeddable & { createdAt: string }, F> {
  /** The method its cursors are bound to. */
  method: string;
  /** What the search is called in its errors (`recall`, `search`). */
  noun: string;
  options: RankingOptions;
  /** The options as a cursor binds them (cursor and limit left out); the resolved mode and order are added. */
  bound: Record<string, unknown>;
  /** The caller's filter, or undefined when nothing can match (then the page is empty). */
  narrow: () => Promise<F | undefined>;
  /** The backend's lexical search under the filter. */
  lexical: (filter: F, query: RankedLexicalQuery) => Awaitable<Scored<R>[]>;
}

/** What a vector store's query adds to the caller's filter: `k` neighbours of `vector`. */
type NearestQuery = { embedderId: string; vector: Float32Array; k: number };

/** Runs one ranked search: one page of records, each with its score in [0, 1]. */
export async function rankedPage<R extends Embeddable & { createdAt: string }, F>(
  ctx: RankingContext<R, NoInfer<F> & NearestQuery>,
  search: RankedSearch<R, F>,
): Promise<Page<Scored<R>>> {
  const o = search.options;
  const mode = o.mode ?? defaultRecallMode(ctx.embedder !== undefined && ctx.vectors !== undefined);
  if (mode !== 'lexical' && (ctx.vectors === undefined || (ctx.embedder === undefined && ctx.defaultEmbedder === undefined))) {
    throw new ValidationError('mode', `${mode} ${search.noun} needs a provider configured with an embedder`);
  }
  const order = o.order ?? defaultRecallOrder(mode, o.query);
  const relevance = order === 'relevance';
  // The cursor is bound to the resolved mode and order, so a page never resumes another ranking.
  const pager: Pager<Scored<R>> = openPager(
    {
      method: search.method,
      query: { ...search.bound, mode, order },
      order: relevance ? BEST_FIRST : NEWEST_FIRST,
      key: (h) => (relevance ? [h.score, h.record.createdAt, h.record.id] : [h.record.createdAt, h.record.id]),
    },
    o.cursor,
  );
  const filter = await search.narrow();
  const tokens = queryTokens(o.query);
  if (filter === undefined || tokens === null) return toPage([], undefined);
  const limit = o.limit ?? DEFAULT_RECALL_LIMIT;
  const minScore = o.minScore ?? 0;
  const finish = (hits: Scored<R>[], keyset: boolean): Page<Scored<R>> => {
    const kept = hits.filter((h) => h.score >= minScore);
    kept.sort(pager.compare);
    return pager.page((keyset ? kept.filter((h) => pager.isAfter(h)) : kept).slice(0, limit + 1), limit);
  };

  // Without query text there is nothing to compare meaning with: every mode lists.
  if (mode === 'lexical' || tokens.length === 0) {
    const after = toKeyset(pager.after);
    const hits = await search.lexical(filter, { tokens, limit: minScore > 0 ? 0 : limit + 1, order, match: o.match ?? 'all', after });
    return finish(
      hits.map((h) => ({ record: h.record, score: order === 'recent' ? 1 : h.score })),
      false,
    );
  }

  const embedder = ctx.embedder ?? (await ctx.defaultEmbedder!());
  // Rankers look deep enough to reach past every page served so far.
  const depth = Math.max((pager.served + limit + 1) * CANDIDATE_FACTOR, MIN_CANDIDATES);
  await catchUpVectors(embedder, ctx.vectors!);
  const [queryVector] = await embedder.embed([o.query!]);
  const near = await ctx.vectors!.nearest({ ...filter, embedderId: embedder.id, vector: queryVector!, k: depth });
  if (mode === 'semantic') {
    return finish(
      near.map((n) => ({ record: n.record, score: unitScore(n.similarity) })).filter((n) => isMatchScore(n.score)),
      true,
    );
  }
  const match = o.match ?? HYBRID_LEXICAL_MATCH;
  const lexical = await search.lexical(filter, { tokens: await lexicalLegTokens(embedder, tokens, match), limit: depth, order: 'relevance', match });
  const records = new Map<string, R>();
  for (const h of lexical) records.set(h.record.id, h.record);
  for (const n of near) records.set(n.record.id, n.record);
  const fused = fuseLegs(
    lexical.map((h) => ({ id: h.record.id, score: h.score })),
    near.map((n) => ({ id: n.record.id, score: n.similarity })),
    ctx.fusionWeights,
  );
  return finish(
    fused.map((f) => ({ record: records.get(f.id)!, score: f.score })),
    true,
  );
}

/**
 * The tokens of hybrid's lexical leg: the query's, plus the embedder's
 * related words when the leg matches any token (with `match: 'all'` an added
 * synonym would have to match too, so none are added).
 */
async function lexicalLegTokens(embedder: Embedder, tokens: readonly string[], match: TokenMatch): Promise<string[]> {
  if (match !== 'any' || embedder.relatedTokens === undefined || tokens.length === 0) return [...tokens];
  const related = queryTokens((await embedder.relatedTokens(tokens)).join(' ')) ?? [];
  return [...new Set([...tokens, ...related])];
}
