/**
 * Lexical matching on PostgreSQL full-text search (docs/contract.md §5).
 * A record's `search` column is the `tsvector` of core's folded tokens
 * (`tokenize`, the tokens `foldForIndex` joins), built with
 * `array_to_tsvector` so no text-search parser splits or stems them; a
 * query is the `tsquery` of core's query tokens, each a quoted prefix
 * term, never raw user text. The index only narrows the candidates: each is
 * re-checked with core's matcher and ranked with core's BM25 (`matchesTokensOf`,
 * `rankByBm25`), so results equal the reference backend's.
 */
import { tokenize } from '@agentstate/core';
import type { TokenMatch } from '@agentstate/core/backend';

/** Longest lexeme PostgreSQL stores (2 KiB, in bytes); longer tokens are indexed by their prefix. */
const MAX_LEXEME_BYTES = 2_000;

/** Cuts a token to at most {@link MAX_LEXEME_BYTES} bytes of UTF-8, on a character boundary. */
function lexeme(token: string): string {
  if (Buffer.byteLength(token) <= MAX_LEXEME_BYTES) return token;
  let out = '';
  for (const char of token) {
    if (Buffer.byteLength(out + char) > MAX_LEXEME_BYTES) break;
    out += char;
  }
  return out;
}

/**
 * Lexeme bytes a record's `tsvector` may hold: PostgreSQL refuses more than
 * 1 MiB of lexemes, with their entries; below that with a margin.
 */
const MAX_INDEX_BYTES = 800_000;

/**
 * The distinct lexemes of `text` for `array_to_tsvector`, or `null` when
 * they are more than a `tsvector` holds: such a record (rare: the contract
 * allows a million characters) is stored unindexed, and every search takes
 * it as a candidate for core's matcher, so it is still found exactly.
 */
export function indexLexemes(text: string): string[] | null {
  const lexemes = [...new Set(tokenize(text).map(lexeme))];
  let bytes = 0;
  for (const l of lexemes) bytes += Buffer.byteLength(l) + 8;
  return bytes > MAX_INDEX_BYTES ? null : lexemes;
}

/** The condition that `alias`'s `search` column may match `tsquery` (a placeholder): indexed and matching, or unindexed. */
export function lexicalCandidate(alias: string, tsquery: string): string {
  return `(${alias}.search @@ ${tsquery}::tsquery OR (${alias}.search IS NULL AND NOT ${alias}.deleted))`;
}

/** A lexeme as the text of a `tsvector` or `tsquery` writes it: quoted, its quotes and backslashes doubled. */
const quoted = (lexeme: string): string => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** The text of the `tsvector` `array_to_tsvector` makes of `lexemes`: the form a JSON row gives the `search` column. */
export const tsvectorText = (lexemes: readonly string[]): string => lexemes.map(quoted).join(' ');

/** The `tsquery` text of folded query tokens: `'tok':*` terms joined by `&` (or `|`). */
export function tsQuery(tokens: readonly string[], match: TokenMatch = 'all'): string {
  return tokens.map((t) => `${quoted(lexeme(t))}:*`).join(match === 'all' ? ' & ' : ' | ');
}
