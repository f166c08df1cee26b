/**
 * Lexical matching on FTS5 (SPEC §5). MATCH expressions are built only from
 * core's folded query tokens, each quoted as a prefix term, never from raw
 * user text. FTS5 narrows the candidates; every candidate is then checked
 * with core's own `matchesTokens`, so results equal the reference backend's
 * even where FTS5's Unicode tables fold a character differently.
 */
import { matchesTokens, tokenize } from '@agentstate/core';

/** How query tokens combine: `all` must match (SPEC §5), or `any` may. */
export type TokenMatch = 'all' | 'any';

/** The FTS5 query for folded `tokens`: `"tok"*` terms joined by AND (or OR). */
export function ftsQuery(tokens: readonly string[], match: TokenMatch = 'all'): string {
  return tokens.map((t) => `"${t.replaceAll('"', '""')}"*`).join(match === 'all' ? ' AND ' : ' OR ');
}

/** True when at least one query token prefixes some record token. */
function matchesAnyToken(query: readonly string[], recordTokens: readonly string[]): boolean {
  return query.some((q) => recordTokens.some((t) => t.startsWith(q)));
}

/** The exact check of SPEC §5 on a candidate's searchable text. */
export function verifies(tokens: readonly string[], text: string, match: TokenMatch = 'all'): boolean {
  if (tokens.length === 0) return true;
  const recordTokens = tokenize(text);
  return match === 'all' ? matchesTokens(tokens, recordTokens) : matchesAnyToken(tokens, recordTokens);
}

/** FTS5's bm25 (lower is better) squashed into [0, 1) like core's `bm25Score`. */
export function relevanceScore(rank: number): number {
  const s = Math.max(0, -rank);
  return s / (1 + s);
}
