/** The read-model queries of the in-memory backend. */
import { bm25Score, termFrequencies } from '../matching/bm25.js';
import { matchesTokens, tokenMatcher } from '../matching/lexical.js';
import { compareMemoryNewestFirst, compareSkillsBySlug } from '../records/order.js';
import type { MemoryItem, Scope, Skill } from '../records/records.js';
import { scopeKey, scopeStartsWith } from '../records/scope.js';
import type { LexicalQuery, Scored, StateQueries } from '../write/backend.js';
import { scopeFilter } from './scope-filter.js';
import type { InMemoryState } from './state.js';

const cap = <T>(list: T[], limit: number): T[] => (limit > 0 ? list.slice(0, limit) : list);

/** Ranks matches by BM25 (best first), ties by `tieBreak`. */
function rankByRelevance<T>(
  query: readonly string[],
  matches: readonly { record: T; tokens: readonly string[] }[],
  tieBreak: (a: T, b: T) => number,
): Scored<T>[] {
  const tfs = matches.map((m) => termFrequencies(query, m.tokens));
  const corpus = {
    documents: matches.length,
    averageLength: matches.reduce((n, m) => n + m.tokens.length, 0) / Math.max(1, matches.length),
    documentFrequency: query.map((_, i) => tfs.reduce((n, tf) => (tf[i]! > 0 ? n + 1 : n), 0)),
  };
  return matches
    .map((m, i) => ({ record: m.record, score: query.length === 0 ? 1 : bm25Score(corpus, tfs[i]!, m.tokens.length) }))
    .sort((a, b) => b.score - a.score || tieBreak(a.record, b.record));
}

/** Queries over an {@link InMemoryState}. */
export function inMemoryQueries(state: InMemoryState): StateQueries {
  return {
    session: (id) => state.sessions.get(id),
    turnExists: (id) => state.turnIds.has(id),
    lastTurnSeq: (sessionId) => state.turns.get(sessionId)?.length ?? 0,
    skill: (id) => state.skills.get(id),
    skillAt: (scope, slug) => state.skillAt(scope, slug),
    liveSkillsBySlug: (slug) => [...(state.liveSkillsBySlug.get(slug)?.values() ?? [])],
    memoryItem: (id) => state.memory.get(id),

    listSessions: ({ limit, offset, ...filter }) => {
      const inScope = scopeFilter(filter);
      const items = filter.scopes === undefined ? state.liveSessions.items : state.liveSessions.items.filter((s) => inScope(s.scope));
      return items.slice(offset, limit > 0 ? offset + limit : items.length);
    },

    turns: (sessionId, { afterSeq, limit }) => {
      const list = state.turns.get(sessionId) ?? [];
      return list.slice(afterSeq, limit > 0 ? afterSeq + limit : list.length);
    },

    listSkills: (scope, includeDescendants = false) => {
      if (!includeDescendants) return state.skillsIn(scope);
      const skills: Skill[] = [];
      for (const bucket of state.liveSkillsByScope.values()) {
        for (const skill of bucket.values()) if (scopeStartsWith(skill.scope, scope)) skills.push(skill);
      }
      return skills.sort(compareSkillsBySlug);
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

    searchSkills: (query: LexicalQuery) => {
      const inScope = scopeFilter(query);
      const matches: { record: Skill; tokens: string[] }[] = [];
      for (const skill of state.skills.values()) {
        if (skill.deleted || !inScope(skill.scope)) continue;
        const tokens = state.skillTokens(skill);
        if (matchesTokens(query.tokens, tokens)) matches.push({ record: skill, tokens });
      }
      if (query.order === 'relevance') return cap(rankByRelevance(query.tokens, matches, compareSkillsBySlug), query.limit);
      matches.sort((a, b) => compareSkillsBySlug(a.record, b.record));
      return cap(matches, query.limit).map((m) => ({ record: m.record, score: 1 }));
    },

    searchMemory: (query: LexicalQuery & { kinds?: readonly string[] }) => {
      const inScope = scopeFilter(query);
      const kinds = query.kinds === undefined ? undefined : new Set(query.kinds);
      const relevance = query.order === 'relevance';
      const matchFn = tokenMatcher(query.match);
      const items = state.liveMemory.items;
      const matches: { record: MemoryItem; tokens: string[] }[] = [];
      for (let i = items.length - 1; i >= 0; i -= 1) {
        const item = items[i]!;
        if (!inScope(item.scope) || (kinds && !kinds.has(item.kind))) continue;
        const tokens = state.memoryTokens(item);
        if (!matchFn(query.tokens, tokens)) continue;
        matches.push({ record: item, tokens });
        if (!relevance && query.limit > 0 && matches.length >= query.limit) break;
      }
      if (relevance) return cap(rankByRelevance(query.tokens, matches, compareMemoryNewestFirst), query.limit);
      return matches.map((m) => ({ record: m.record, score: 1 }));
    },
  };
}
