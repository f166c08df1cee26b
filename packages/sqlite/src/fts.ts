/**
 * Lexical matching on FTS5 (docs/contract.md §5). MATCH expressions are built only from
 * core's folded query tokens, each quoted as a prefix term, never from raw
 * user text. FTS5 narrows the candidates; every candidate is then checked
 * with core's own matcher, so results equal the reference backend's
 * even where FTS5's Unicode tables fold a character differently.
 */
import { tokenize } from '@agentstate/core';
import type { TokenMatch } from '@agentstate/core/backend';
import { squashScore, tokenMatcher } from '@agentstate/core/backend';

/** The FTS5 query for folded `tokens`: `"tok"*` terms joined by AND (or OR). */
export function ftsQuery(tokens: readonly string[], match: TokenMatch = 'all'): string {
  return tokens.map((t) => `"${t.replaceAll('"', '""')}"*`).join(match === 'all' ? ' AND ' : ' OR ');
}

/** The exact check of docs/contract.md §5 on a candidate's searchable text. */
export function verifies(tokens: readonly string[], text: string, match: TokenMatch = 'all'): boolean {
  return tokens.length === 0 || tokenMatcher(match)(tokens, tokenize(text));
}

/** FTS5's bm25 (lower is better) squashed into [0, 1) as core's `bm25Score` is. */
export function relevanceScore(rank: number): number {
  return squashScore(-rank);
}
