/**
 * Transcript search (docs/contract.md §4): live turns of live sessions,
 * found lexically, semantically or both by the pipeline memory recall
 * shares (`ranking.ts`): the same default mode and order, the same matcher,
 * the same candidate depth, scores and pages. Each hit carries its session
 * and its neighbouring live turns.
 */
import { NotFoundError } from '../errors.js';
import { copySession, copyTurn } from '../records/copy.js';
import { type SearchSessionsOptions, DEFAULT_SEARCH_CONTEXT, parseInput, searchSessionsOptionsSchema } from '../records/inputs.js';
import { type Page, toPage } from '../paging/cursor.js';
import type { Session, Turn } from '../records/records.js';
import { toScope, type ScopeInput } from '../records/scope.js';
import type { Scored, StateLookups, StateQueries, TurnFilter, TurnVectorQuery } from '../write/backend.js';
import type { TurnHit } from './types.js';
import { type RankingContext, rankedPage } from './ranking.js';

/** What transcript search needs from its provider: recall's ranking, over turn vectors. */
export interface SearchContext extends RankingContext<Turn, TurnVectorQuery> {
  queries: StateQueries;
}

/** The live session `id` as `lookups` read it, else `NotFoundError`. */
export async function liveSession(lookups: Pick<StateLookups, 'session'>, id: string): Promise<Session> {
  const session = await lookups.session(id);
  if (!session || session.deleted) throw new NotFoundError('session', id);
  return session;
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

/** Runs one transcript search, one page at a time (pages as `memory.recall` does). */
export async function searchSessions(ctx: SearchContext, options: SearchSessionsOptions): Promise<Page<TurnHit>> {
  const o = parseInput(searchSessionsOptionsSchema, options);
  const { cursor: _cursor, limit: _limit, ...query } = o;
  const q = ctx.queries;
  const page = await rankedPage(ctx, {
    method: 'sessions.search',
    noun: 'search',
    options: o,
    bound: { ...query, scope: query.scope === undefined ? undefined : toScope(query.scope) },
    narrow: async (): Promise<TurnFilter | undefined> => {
      if (o.sessionId !== undefined) await liveSession(q, o.sessionId);
      const sessionIds = await sessionIdsToSearch(q, o.sessionId, o.scope, o.includeDescendants ?? false);
      return sessionIds?.length === 0 ? undefined : { sessionIds, roles: o.roles };
    },
    lexical: (filter, lexical) => q.searchTurns({ ...filter, ...lexical }),
  });
  const context = typeof o.context === 'number' ? { before: o.context, after: o.context } : { ...DEFAULT_SEARCH_CONTEXT, ...o.context };
  return toPage(await withContext(q, page, context), page.nextCursor);
}

/** Attaches each hit's session and neighbouring live turns; drops a hit whose session is gone. */
async function withContext(q: StateQueries, hits: Scored<Turn>[], context: { before: number; after: number }): Promise<TurnHit[]> {
  const sessions = new Map<string, Session | undefined>();
  const out: TurnHit[] = [];
  for (const hit of hits) {
    if (!sessions.has(hit.record.sessionId)) sessions.set(hit.record.sessionId, await q.session(hit.record.sessionId));
    const session = sessions.get(hit.record.sessionId);
    if (!session || session.deleted) continue;
    const around = await q.turnNeighbours(hit.record.sessionId, hit.record.seq, context);
    out.push({
      turn: copyTurn(hit.record),
      session: copySession(session),
      score: hit.score,
      before: around.before.map(copyTurn),
      after: around.after.map(copyTurn),
    });
  }
  return out;
}
