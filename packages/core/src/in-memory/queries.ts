/** The read-model queries of the in-memory backend. */
import { rankByBm25 } from '../matching/bm25.js';
import { tokenMatcher } from '../matching/lexical.js';
import { compareMemoryNewestFirst, compareSkillsBySlug, compareStrings, compareTurnsNewestFirst } from '../records/order.js';
import type { MemoryItem, Scope, Turn } from '../records/records.js';
import { scopeFilter, scopeKey, scopeStartsWith } from '../records/scope.js';
import type { LexicalQuery, MemoryFilter, Scored, ScopeFilter, StateQueries, TurnFilter } from '../write/backend.js';
import { matchesWhere } from '../matching/where.js';
import { isExpired } from '../write/stamper.js';
import { pastKeyset } from '../paging/cursor.js';
import type { InMemoryState } from '../fold/state.js';

const cap = <T>(list: T[], limit: number): T[] => (limit > 0 ? list.slice(0, limit) : list);

/** The turn filter as a predicate. */
export function turnFilter(filter: TurnFilter): (turn: Pick<Turn, 'sessionId' | 'role'>) => boolean {
  const sessions = filter.sessionIds === undefined ? undefined : new Set(filter.sessionIds);
  const roles = filter.roles === undefined ? undefined : new Set<string>(filter.roles);
  return (turn) => (!sessions || sessions.has(turn.sessionId)) && (!roles || roles.has(turn.role));
}

/** The predicate of a {@link MemoryFilter} and a {@link ScopeFilter}: scopes, kinds, metadata and expiry. */
export function memoryFilter(filter: MemoryFilter & ScopeFilter): (item: MemoryItem) => boolean {
  const inScope = scopeFilter(filter);
  const kinds = filter.kinds === undefined ? undefined : new Set(filter.kinds);
  const { where, now } = filter;
  return (item) =>
    inScope(item.scope) &&
    (kinds === undefined || kinds.has(item.kind)) &&
    !filter.exceptKinds?.includes(item.kind) &&
    (now === undefined || !isExpired(item, now)) &&
    (where === undefined || matchesWhere(item.metadata, where));
}

/**
 * A lexical search over `records`: those whose tokens match the query, in
 * `order` past the query's keyset on (`sort`, id) in `direction`, or ranked
 * by BM25 (ties by `order`) past its keyset on (score, `sort`, id); at most
 * `query.limit` of them.
 */
function search<S extends string, T extends { id: string } & Record<S, string>>(
  query: LexicalQuery,
  records: readonly T[],
  tokensOf: (record: T) => string[],
  order: (a: T, b: T) => number,
  sort: S,
  direction: 1 | -1,
): Scored<T>[] {
  const relevance = query.order === 'relevance';
  const matchFn = tokenMatcher(query.match);
  const matches: { record: T; tokens: string[] }[] = [];
  for (const record of records) {
    if (!relevance && !pastKeyset(query.after, 1, record[sort], record.id, direction)) continue;
    const tokens = tokensOf(record);
    if (matchFn(query.tokens, tokens)) matches.push({ record, tokens });
  }
  if (relevance)
    return cap(
      rankByBm25(query.tokens, matches, order).filter((h) => pastKeyset(query.after, h.score, h.record[sort], h.record.id, direction)),
      query.limit,
    );
  matches.sort((a, b) => order(a.record, b.record));
  return cap(matches, query.limit).map((m) => ({ record: m.record, score: 1 }));
}

/** Queries over an {@link InMemoryState}, but for those the backend answers from its log too (history, purge by text). */
export function inMemoryQueries(state: InMemoryState): Omit<StateQueries, 'recordSeqs' | 'purgeable'> {
  return {
    checkpoints: state.checkpoints,
    session: (id) => state.sessions.get(id),
    turnExists: (id) => state.turnExists(id),
    turn: (id) => state.turn(id),
    lastTurnSeq: (sessionId) => state.turns.get(sessionId)?.length ?? 0,
    lastTurns: (sessionId, n) => state.lastLiveTurns(sessionId, n),
    skill: (id) => state.skills.get(id),
    skillAt: (scope, slug) => state.skillAt(scope, slug),
    liveSkillsBySlug: (slug) => [...(state.liveSkillsBySlug.get(slug)?.values() ?? [])],
    memoryItem: (id) => state.memory.get(id),
    operation: (id) => state.operations.get(id),
    memoryWithKey: (scope, key) => {
      const id = state.memoryIdWithKey(scope, key);
      return id === undefined ? undefined : state.memory.get(id);
    },

    expiredMemory: (now, limit) =>
      state.liveMemory.items
        .filter((item) => isExpired(item, now))
        .sort((a, b) => compareStrings(a.expiresAt!, b.expiresAt!) || compareStrings(a.id, b.id))
        .slice(0, limit),

    listSessions: ({ limit, offset, after, ...filter }) => {
      const inScope = scopeFilter(filter);
      const scoped = filter.scopes === undefined ? state.liveSessions.items : state.liveSessions.items.filter((s) => inScope(s.scope));
      const items = after === undefined ? scoped : scoped.filter((s) => pastKeyset(after, 1, s.createdAt, s.id, 1));
      return items.slice(offset, limit > 0 ? offset + limit : items.length);
    },

    turns: (sessionId, { afterSeq, limit }) => {
      const list = state.turns.get(sessionId) ?? [];
      const out: Turn[] = [];
      for (let i = afterSeq; i < list.length && (limit <= 0 || out.length < limit); i += 1) if (!list[i]!.deleted) out.push(list[i]!);
      return out;
    },

    listSkills: (scope, page) => {
      let skills = state.skillsIn(scope);
      if (page?.includeDescendants) {
        skills = [];
        for (const bucket of state.liveSkillsByScope.values()) {
          for (const skill of bucket.values()) if (scopeStartsWith(skill.scope, scope)) skills.push(skill);
        }
        skills.sort(compareSkillsBySlug);
      }
      return cap(
        skills.filter((s) => pastKeyset(page?.after, 1, s.slug, s.id, 1)),
        page?.limit ?? 0,
      );
    },
    liveScopes: (prefix) => {
      const found = new Map<string, Scope>();
      const add = (scope: Scope): void => {
        if (scopeStartsWith(scope, prefix)) found.set(scopeKey(scope), scope);
      };
      for (const session of state.liveSessions.items) add(session.scope);
      for (const bucket of state.liveSkillsByScope.values()) for (const skill of bucket.values()) add(skill.scope);
      for (const item of state.liveMemory.items) add(item.scope);
      return [...found.values()];
    },

    searchSkills: (query) => {
      const inScope = scopeFilter(query);
      const skills = [...state.skills.values()].filter((s) => !s.deleted && inScope(s.scope));
      return search(query, skills, (s) => state.skillTokens(s), compareSkillsBySlug, 'slug', 1);
    },
    searchMemory: (query) => {
      const passes = memoryFilter(query);
      const items = state.liveMemory.items;
      if (query.order === 'relevance') return search(query, items.filter(passes), (m) => state.memoryTokens(m), compareMemoryNewestFirst, 'createdAt', -1);
      // Newest first, the page's own order, so the page ends at its limit rather than after every item.
      const matchFn = tokenMatcher(query.match);
      const page: Scored<MemoryItem>[] = [];
      for (let i = items.length - 1; i >= 0 && (query.limit <= 0 || page.length < query.limit); i -= 1) {
        const item = items[i]!;
        if (passes(item) && pastKeyset(query.after, 1, item.createdAt, item.id, -1) && matchFn(query.tokens, state.memoryTokens(item)))
          page.push({ record: item, score: 1 });
      }
      return page;
    },
    searchTurns: (query) =>
      search(query, [...state.liveTurns()].filter(turnFilter(query)), (t) => state.turnTokens(t), compareTurnsNewestFirst, 'createdAt', -1),

    turnNeighbours: (sessionId, seq, window) => {
      const live = (state.turns.get(sessionId) ?? []).filter((t) => !t.deleted);
      const at = live.findIndex((t) => t.seq >= seq);
      const index = at < 0 ? live.length : at;
      const next = live[index]?.seq === seq ? index + 1 : index;
      return { before: live.slice(Math.max(0, index - window.before), index), after: live.slice(next, next + window.after) };
    },
  };
}
