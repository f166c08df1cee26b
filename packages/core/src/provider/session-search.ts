/**
 * Transcript search (docs/contract.md §4): live turns of live sessions,
 * found lexically, semantically or both, exactly as memory recall finds
 * items: the same default mode and order, the same matcher, the same
 * candidate depth and the same scores. Each hit carries its
 * session and its neighbouring live turns. Pages are keyset pages, as
 * recall's: by (score, createdAt, id) for relevance, (createdAt, id) newest first.
 */
import { NotFoundError, ValidationError } from '../errors.js';
import { queryTokens } from '../matching/lexical.js';
import { copySession, copyTurn } from '../records/copy.js';
import type { SearchSessionsOptions } from '../records/inputs.js';
import { DEFAULT_RECALL_LIMIT, DEFAULT_SEARCH_CONTEXT, parseInput, searchSessionsOptionsSchema } from '../records/inputs.js';
import type { Page, Pager } from '../paging/cursor.js';
import { NUMBER_DESC, openPager, TEXT_DESC, toKeyset, toPage } from '../paging/cursor.js';
import type { Session, Turn } from '../records/records.js';
import { toScope } from '../records/scope.js';
import type { ScopeInput } from '../records/scope.js';
import type { StateQueries, TurnFilter, TurnVectorQuery, VectorStore } from '../write/backend.js';
import type { RecallContext } from './recall.js';
import { candidateDepth, HYBRID_LEXICAL_MATCH, lexicalLegTokens } from './recall.js';
import { defaultRecallMode, defaultRecallOrder } from './recall-defaults.js';
import type { TurnHit } from './types.js';
import { rankedLegs } from './ranked-legs.js';

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

type Found = { turn: Turn; score: number };

const NEWEST_FIRST = [TEXT_DESC, TEXT_DESC];
const BEST_FIRST = [NUMBER_DESC, TEXT_DESC, TEXT_DESC];

/** Runs one transcript search, one page at a time (pages as `memory.recall` does). */
export async function searchSessions(ctx: SearchContext, options: SearchSessionsOptions): Promise<Page<TurnHit>> {
  const o = parseInput(searchSessionsOptionsSchema, options);
  const { cursor, limit: _limit, ...query } = o;
  const q = ctx.queries;
  const mode = o.mode ?? defaultRecallMode(ctx.embedder !== undefined && ctx.vectors !== undefined);
  const order = o.order ?? defaultRecallOrder(mode, o.query);
  const relevance = order === 'relevance';
  // The cursor is bound to the resolved mode and order, so a page never resumes another ranking.
  const pager: Pager<Found> = openPager(
    {
      method: 'sessions.search',
      query: { ...query, scope: query.scope === undefined ? undefined : toScope(query.scope), mode, order },
      order: relevance ? BEST_FIRST : NEWEST_FIRST,
      key: (h) => (relevance ? [h.score, h.turn.createdAt, h.turn.id] : [h.turn.createdAt, h.turn.id]),
    },
    cursor,
  );
  if (o.sessionId !== undefined) {
    const session = await q.session(o.sessionId);
    if (!session || session.deleted) throw new NotFoundError('session', o.sessionId);
  }
  const tokens = queryTokens(o.query);
  if (tokens === null) return toPage([], undefined);
  const sessionIds = await sessionIdsToSearch(q, o.sessionId, o.scope, o.includeDescendants ?? false);
  if (sessionIds?.length === 0) return toPage([], undefined);
  const filter: TurnFilter = { sessionIds, roles: o.roles };
  const limit = o.limit ?? DEFAULT_RECALL_LIMIT;
  if (mode !== 'lexical' && (ctx.vectors === undefined || (ctx.embedder === undefined && ctx.defaultEmbedder === undefined))) {
    throw new ValidationError('mode', `${mode} search needs a provider configured with an embedder`);
  }
  const minScore = o.minScore ?? 0;
  const context = typeof o.context === 'number' ? { before: o.context, after: o.context } : { ...DEFAULT_SEARCH_CONTEXT, ...o.context };
  const finish = async (hits: Found[], keyset: boolean): Promise<Page<TurnHit>> => {
    const kept = hits.filter((h) => h.score >= minScore);
    kept.sort(pager.compare);
    const page = pager.page((keyset ? kept.filter((h) => pager.isAfter(h)) : kept).slice(0, limit + 1), limit);
    return toPage(await withContext(q, page, context), page.nextCursor);
  };

  // Without query text there is nothing to compare meaning with: every mode lists.
  if (mode === 'lexical' || tokens.length === 0) {
    const after = toKeyset(pager.after);
    const hits = await q.searchTurns({ ...filter, tokens, limit: minScore > 0 ? 0 : limit + 1, order, match: o.match ?? 'all', after });
    return finish(
      hits.map((h) => ({ turn: h.record, score: order === 'recent' ? 1 : h.score })),
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
    nearest: (embedderId, vector) => ({ ...filter, embedderId, vector, k: depth }),
    lexical: async () =>
      q.searchTurns({
        ...filter,
        tokens: await lexicalLegTokens(embedder, tokens, o.match),
        limit: depth,
        order: 'relevance',
        match: o.match ?? HYBRID_LEXICAL_MATCH,
      }),
  });
  return finish(
    found.map((f) => ({ turn: f.record, score: f.score })),
    true,
  );
}

/** Attaches each hit's session and neighbouring live turns; drops a hit whose session is gone. */
async function withContext(q: StateQueries, hits: Found[], context: { before: number; after: number }): Promise<TurnHit[]> {
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
