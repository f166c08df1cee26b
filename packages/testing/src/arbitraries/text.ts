/**
 * Text arbitraries: words with diacritics and other scripts, punctuation, query-syntax characters,
 * and searchable texts and queries built from them. Every string is well-formed Unicode without
 * NUL.
 */
import fc from 'fast-check';

/** Words that exercise case and diacritic folding and non-Latin scripts. */
export const SAMPLE_WORDS: readonly string[] =
  'go Go GO deploy deploys ship faster user prefers Café cafe Jürgen jurgen naïve résumé Ångström façade Ελληνικά κείμενο Москва 日本語 שלום x86 2026'.split(
    ' ',
  );

/** Characters and words that are query syntax somewhere (FTS5, tsquery, LIKE, SQL). */
export const SYNTAX_PIECES: readonly string[] = `" * ( ) : ^ - ' \\ % _ ;-- {} [] NEAR OR AND NOT + ~ | & ! <->`.split(' ');

/** Punctuation (no letters or digits), including the query-syntax characters. */
export function arbPunctuation(): fc.Arbitrary<string> {
  const syntax = SYNTAX_PIECES.filter((piece) => !/[A-Z]/.test(piece));
  return fc.constantFrom(...syntax, '.', ',', '?', '/', '@', '#', '$', '=', '<', '>', '…', '—', '¿');
}

/** A word: from {@link SAMPLE_WORDS}, or random letters (any script) and digits. */
export function arbWord(): fc.Arbitrary<string> {
  const letters = fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüöçñåøßЖжλΩ0123456789'),
    minLength: 1,
    maxLength: 8,
  });
  return fc.oneof({ arbitrary: fc.constantFrom(...SAMPLE_WORDS), weight: 3 }, { arbitrary: letters, weight: 2 });
}

/** Any printable Unicode text (graphemes of every script, emoji, combining marks), without NUL. */
export function arbUnicodeText(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc
    .string({ unit: 'grapheme', minLength: constraints.minLength ?? 0, maxLength: constraints.maxLength ?? 40 })
    .filter((s) => !s.includes('\u0000') && s.length >= (constraints.minLength ?? 0));
}

/** Searchable text: words, punctuation and syntax pieces joined by spaces or nothing, sometimes with arbitrary Unicode mixed in. */
export function arbText(constraints: { minWords?: number; maxWords?: number } = {}): fc.Arbitrary<string> {
  const piece = fc.oneof(
    { arbitrary: arbWord(), weight: 6 },
    { arbitrary: arbPunctuation(), weight: 1 },
    { arbitrary: fc.constantFrom(...SYNTAX_PIECES), weight: 1 },
    { arbitrary: arbUnicodeText({ minLength: 1, maxLength: 4 }), weight: 1 },
  );
  const separator = fc.constantFrom(' ', ' ', ' ', '', '-', ', ', '\n', '\t');
  return fc
    .array(fc.tuple(piece, separator), { minLength: constraints.minWords ?? 1, maxLength: constraints.maxWords ?? 8 })
    .map((parts) => parts.flat().join('').trim())
    .filter((s) => s.length > 0);
}

/** A query: empty, a word or prefix of one, several words, words wrapped in syntax characters, operator words, or punctuation only. */
export function arbQuery(): fc.Arbitrary<string> {
  const prefix = arbWord().chain((w) => fc.integer({ min: 1, max: Math.max(1, [...w].length) }).map((n) => [...w].slice(0, n).join('')));
  const wrapped = fc.tuple(fc.constantFrom(...SYNTAX_PIECES), arbWord(), fc.constantFrom(...SYNTAX_PIECES)).map(([a, w, b]) => `${a}${w}${b}`);
  return fc.oneof(
    { arbitrary: fc.constant(''), weight: 1 },
    { arbitrary: arbWord(), weight: 4 },
    { arbitrary: prefix, weight: 3 },
    { arbitrary: fc.array(arbWord(), { minLength: 2, maxLength: 3 }).map((ws) => ws.join(' ')), weight: 2 },
    { arbitrary: wrapped, weight: 2 },
    { arbitrary: fc.tuple(arbWord(), fc.constantFrom('OR', 'AND', 'NOT', 'NEAR'), arbWord()).map((ws) => ws.join(' ')), weight: 1 },
    { arbitrary: fc.array(arbPunctuation(), { minLength: 1, maxLength: 3 }).map((ps) => ps.join('')), weight: 1 },
  );
}
