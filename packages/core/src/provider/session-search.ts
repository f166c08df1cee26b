/**
 * Transcript search (docs/contract.md §4): live turns of live sessions,
 * found lexically, semantically or both, exactly as memory recall finds
 * items: the same default mode and order, the same matcher, the same
 * candidate depth and the same reciprocal rank fusion. Each hit carries its
 * session and its neighbouring live turns.
 */
import { reciprocalRankFusion } from '../embedding/fusion.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { queryTokens } from '../matching/lexical.js';
import { copySession, copyTurn } from '../records/copy.js';
import type { SearchSessionsOptions } from '../records/inputs.js';
import { DEFAULT_RECALL_LIMIT, DEFAULT_SEARCH_CONTEXT, parseInput, searchSessionsOptionsSchema } from '../records/inputs.js';
import { compareTurnsNewestFirst } from '../records/order.js';
import type { Session, Turn } from '../records/records.js';
import { toScope } from '../records/scope.js';
import type { ScopeInput } from '../records/scope.js';
import type { StateQueries, TurnFilter, TurnVectorQuery, VectorStore } from '../write/backend.js';
import { DEFAULT_SIMILARITY_THRESHOLD } from './options.js';
import type { RecallContext } from './recall.js';
import { candidateDepth, HYBRID_LEXICAL_MATCH } from './recall.js';
import { defaultRecallMode, defaultRecallOrder } from './recall-defaults.js';
import type { TurnHit } from './types.js';
import { catchUpVectors } from './vectors.js';

/** What transcript search needs from its provider: recall's context, over turn vectors. */
export interface SearchContext extends Omit<RecallContext, 'vectors'> {
  vectors: VectorStore<Turn, TurnVectorQuery> | undefined;
}

/**
 * The ids of the live sessions a search may look in: `sessionId` alone, the
 * sessions of `scope` (with `includeDescendants`, of its descendants too),
 * or both at once; undefined when neither narrows it.
 */
async function sessionIdsToSearch(
  q: StateQueries,
  sessionId: string | undefined,
  scope: ScopeInput | undefined,
  includeDescendants: boolean,
): Promise<string[] | undefined> {
  const named = sessionId === undefined ? undefined : [sessionId];
  if (scope === undefined) return named;
  const path = toScope(scope);
  const inScope = await q.listSessions({ limit: 0, offset: 0, scopes: [path], ...(includeDescendants ? { descendantsOf: path } : {}) });
  const ids = inScope.map((session) => session.id);
  return named === undefined ? ids : named.filter((id) => ids.includes(id));
}

/** Runs one transcript search. */
export async function searchSessions(ctx: SearchContext, options: SearchSessionsOptions): Promise<TurnHit[]> {
  const o = parseInput(searchSessionsOptionsSchema, options);
  const q = ctx.queries;
  if (o.sessionId !== undefined) {
    const session = await q.session(o.sessionId);
    if (!session || session.deleted) throw new NotFoundError('session', o.sessionId);
  }
  const tokens = queryTokens(o.query);
  if (tokens === null) return [];
  const sessionIds = await sessionIdsToSearch(q, o.sessionId, o.scope, o.includeDescendants ?? false);
  if (sessionIds?.length === 0) return [];
  const filter: TurnFilter = { sessionIds, roles: o.roles };
  const limit = o.limit ?? DEFAULT_RECALL_LIMIT;
  const mode = o.mode ?? defaultRecallMode(ctx.embedder !== undefined && ctx.vectors !== undefined);
  if (mode !== 'lexical' && (ctx.vectors === undefined || (ctx.embedder === undefined && ctx.defaultEmbedder === undefined))) {
    throw new ValidationError('mode', `${mode} search needs a provider configured with an embedder`);
  }
  const order = o.order ?? defaultRecallOrder(mode, o.query);
  const minScore = o.minScore ?? 0;
  const context = typeof o.context === 'number' ? { before: o.context, after: o.context } : { ...DEFAULT_SEARCH_CONTEXT, ...o.context };
  const finish = (hits: { turn: Turn; score: number }[]): Promise<TurnHit[]> => {
    const kept = hits.filter((h) => h.score >= minScore);
    if (order === 'recent') kept.sort((a, b) => compareTurnsNewestFirst(a.turn, b.turn));
    return withContext(q, kept.slice(0, limit), context);
  };

  // Without query text there is nothing to compare meaning with: every mode lists.
  if (mode === 'lexical' || tokens.length === 0) {
    const hits = await q.searchTurns({ ...filter, tokens, limit: minScore > 0 ? 0 : limit, order, match: o.match ?? 'all' });
    return finish(hits.map((h) => ({ turn: h.record, score: order === 'recent' ? 1 : h.score })));
  }

  const embedder = ctx.embedder ?? (await ctx.defaultEmbedder!());
  const vectors = ctx.vectors!;
  const threshold = ctx.similarityThreshold ?? embedder.similarityThreshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  await catchUpVectors(embedder, vectors);
  const [queryVector] = await embedder.embed([o.query!]);
  const depth = candidateDepth(limit);
  const near = (await vectors.nearest({ ...filter, embedderId: embedder.id, vector: queryVector!, k: depth })).filter((n) => n.similarity >= threshold);
  if (mode === 'semantic') {
    return finish(near.map((n) => ({ turn: n.record, score: Math.max(0, Math.min(1, n.similarity)) })));
  }

  const lexical = await q.searchTurns({ ...filter, tokens, limit: depth, order: 'relevance', match: o.match ?? HYBRID_LEXICAL_MATCH });
  const turns = new Map<string, Turn>();
  for (const h of lexical) turns.set(h.record.id, h.record);
  for (const n of near) turns.set(n.record.id, n.record);
  const fused = reciprocalRankFusion([lexical.map((h) => h.record.id), near.map((n) => n.record.id)], {
    weights: [ctx.fusionWeights.lexical, ctx.fusionWeights.semantic],
  });
  return finish(fused.map((f) => ({ turn: turns.get(f.id)!, score: f.score })));
}

/** Attaches each hit's session and neighbouring live turns; drops a hit whose session is gone. */
async function withContext(q: StateQueries, hits: { turn: Turn; score: number }[], context: { before: number; after: number }): Promise<TurnHit[]> {
  const sessions = new Map<string, Session | undefined>();
  const out: TurnHit[] = [];
  for (const hit of hits) {
    if (!sessions.has(hit.turn.sessionId)) sessions.set(hit.turn.sessionId, await q.session(hit.turn.sessionId));
    const session = sessions.get(hit.turn.sessionId);
    if (!session || session.deleted) continue;
    const around = await q.turnNeighbours(hit.turn.sessionId, hit.turn.seq, context);
    out.push({
      turn: copyTurn(hit.turn),
      session: copySession(session),
      score: hit.score,
      before: around.before.map(copyTurn),
      after: around.after.map(copyTurn),
    });
  }
  return out;
}
