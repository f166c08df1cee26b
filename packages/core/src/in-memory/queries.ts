/** The read-model queries of the in-memory backend. */
import { bm25Score, termFrequencies } from '../matching/bm25.js';
import { matchesTokens, tokenMatcher } from '../matching/lexical.js';
import { compareMemoryNewestFirst, compareSkillsBySlug } from '../records/order.js';
import type { MemoryItem, Scope, Skill } from '../records/records.js';
import { scopeKey } from '../records/scope.js';
import type { LexicalQuery, Scored, StateQueries } from '../write/backend.js';
import { pastKeyset } from '../paging/cursor.js';
import type { InMemoryState } from './state.js';

const cap = <T>(list: T[], limit: number): T[] => (limit > 0 ? list.slice(0, limit) : list);

function scopeFilter(scopes: readonly Scope[] | undefined): (scope: Scope) => boolean {
  if (scopes === undefined) return () => true;
  const keys = new Set(scopes.map(scopeKey));
  return (scope) => keys.has(scopeKey(scope));
}

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

    listSessions: ({ limit, offset, after }) => {
      const items = after === undefined ? state.liveSessions.items : state.liveSessions.items.filter((s) => pastKeyset(after, 1, s.createdAt, s.id, 1));
      return items.slice(offset, limit > 0 ? offset + limit : items.length);
    },

    turns: (sessionId, { afterSeq, limit }) => {
      const list = state.turns.get(sessionId) ?? [];
      return list.slice(afterSeq, limit > 0 ? afterSeq + limit : list.length);
    },

    listSkills: (scope, page) => {
      const after = page?.after;
      return cap(
        state.skillsIn(scope).filter((s) => pastKeyset(after, 1, s.slug, s.id, 1)),
        page?.limit ?? 0,
      );
    },

    searchSkills: (query: LexicalQuery) => {
      const inScope = scopeFilter(query.scopes);
      const matches: { record: Skill; tokens: string[] }[] = [];
      const relevance = query.order === 'relevance';
      for (const skill of state.skills.values()) {
        if (skill.deleted || !inScope(skill.scope)) continue;
        if (!relevance && !pastKeyset(query.after, 1, skill.slug, skill.id, 1)) continue;
        const tokens = state.skillTokens(skill);
        if (matchesTokens(query.tokens, tokens)) matches.push({ record: skill, tokens });
      }
      if (relevance) {
        const ranked = rankByRelevance(query.tokens, matches, compareSkillsBySlug);
        return cap(
          ranked.filter((h) => pastKeyset(query.after, h.score, h.record.slug, h.record.id, 1)),
          query.limit,
        );
      }
      matches.sort((a, b) => compareSkillsBySlug(a.record, b.record));
      return cap(matches, query.limit).map((m) => ({ record: m.record, score: 1 }));
    },

    searchMemory: (query: LexicalQuery & { kinds?: readonly string[] }) => {
      const inScope = scopeFilter(query.scopes);
      const kinds = query.kinds === undefined ? undefined : new Set(query.kinds);
      const relevance = query.order === 'relevance';
      const matchFn = tokenMatcher(query.match);
      const items = state.liveMemory.items;
      const matches: { record: MemoryItem; tokens: string[] }[] = [];
      for (let i = items.length - 1; i >= 0; i -= 1) {
        const item = items[i]!;
        if (!inScope(item.scope) || (kinds && !kinds.has(item.kind))) continue;
        if (!relevance && !pastKeyset(query.after, 1, item.createdAt, item.id, -1)) continue;
        const tokens = state.memoryTokens(item);
        if (!matchFn(query.tokens, tokens)) continue;
        matches.push({ record: item, tokens });
        if (!relevance && query.limit > 0 && matches.length >= query.limit) break;
      }
      if (relevance) {
        const ranked = rankByRelevance(query.tokens, matches, compareMemoryNewestFirst);
        return cap(
          ranked.filter((h) => pastKeyset(query.after, h.score, h.record.createdAt, h.record.id, -1)),
          query.limit,
        );
      }
      return matches.map((m) => ({ record: m.record, score: 1 }));
    },
  };
}
