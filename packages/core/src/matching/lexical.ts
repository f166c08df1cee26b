/**
 * Lexical matching, identical in every backend (docs/contract.md §5). Text is split into
 * tokens (runs of Unicode letters and digits), case- and diacritic-folded. A
 * record matches when every query token is a prefix of some record token.
 * User input is never query syntax: operators and quotes are just text.
 */

const COMBINING_MARKS = /\p{M}+/gu;
const TOKEN = /[\p{L}\p{N}]+/gu;

/** Case- and diacritic-folds text (NFKD, marks removed, lower-cased). */
export function foldCase(text: string): string {
  return text.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
}

/** The folded tokens of `text`, in order, repeats kept. */
export function tokenize(text: string): string[] {
  return foldCase(text).match(TOKEN) ?? [];
}

/**
 * The folded tokens of `text` joined by single spaces: what a full-text
 * index stores so that its own tokenizer sees exactly our tokens.
 */
export function foldForIndex(text: string): string {
  return tokenize(text).join(' ');
}

/**
 * The tokens of a query: `[]` for an empty (or blank) query, which matches
 * everything; `null` for a query with text but no tokens (only
 * punctuation), which matches nothing. Repeated tokens are dropped.
 */
export function queryTokens(query: string | undefined): string[] | null {
  if (query === undefined || query.trim() === '') return [];
  const tokens = tokenize(query);
  return tokens.length === 0 ? null : [...new Set(tokens)];
}

/** True when every query token is a prefix of some record token. */
export function matchesTokens(query: readonly string[], recordTokens: readonly string[]): boolean {
  return query.every((q) => recordTokens.some((t) => t.startsWith(q)));
}

/** True when at least one query token is a prefix of some record token (an empty query matches). */
export function matchesAnyToken(query: readonly string[], recordTokens: readonly string[]): boolean {
  return query.length === 0 || query.some((q) => recordTokens.some((t) => t.startsWith(q)));
}

/** How query tokens combine: `all` must match (docs/contract.md §5), or `any` may. */
export const TOKEN_MATCHES = ['all', 'any'] as const;

/** One of {@link TOKEN_MATCHES}. */
export type TokenMatch = (typeof TOKEN_MATCHES)[number];

/** The matcher for a {@link TokenMatch}. */
export function tokenMatcher(match: TokenMatch = 'all'): (query: readonly string[], recordTokens: readonly string[]) => boolean {
  return match === 'any' ? matchesAnyToken : matchesTokens;
}

/** The exact check of docs/contract.md §5 on a candidate's searchable text, which every backend's full-text index only narrows. */
export function matchesTokensOf(tokens: readonly string[], text: string, match: TokenMatch = 'all'): boolean {
  return tokens.length === 0 || tokenMatcher(match)(tokens, tokenize(text));
}

/** Convenience: does `text` match `query` under docs/contract.md §5, its tokens combined as `match` says? */
export function matchesText(query: string | undefined, text: string, match: TokenMatch = 'all'): boolean {
  const tokens = queryTokens(query);
  return tokens !== null && matchesTokensOf(tokens, text, match);
}
