/**
 * BM25 over prefix-matched tokens, for relevance order in backends without a
 * full-text engine of their own. Scores are squashed into [0, 1).
 */

/** BM25 term-frequency saturation. */
const K1 = 1.2;
/** BM25 length normalisation. */
const B = 0.75;

/** Squashes a non-negative relevance score into [0, 1) by `s / (1 + s)`; every backend reports scores this way. */
export function squashScore(score: number): number {
  const s = Math.max(0, score);
  return s / (1 + s);
}

/**
 * Matches ranked by BM25 over the matches themselves (best first; an empty
 * query scores every match 1), ties by `tieBreak`: the relevance order of
 * every backend that ranks its candidates in JavaScript.
 */
export function rankByBm25<T>(
  query: readonly string[],
  matches: readonly { record: T; tokens: readonly string[] }[],
  tieBreak: (a: T, b: T) => number,
): { record: T; score: number }[] {
  // How often each query token prefixes a token of each match, and in how many matches it prefixes one.
  const tfs = matches.map((m) => query.map((q) => m.tokens.reduce((n, t) => (t.startsWith(q) ? n + 1 : n), 0)));
  const documentFrequency = query.map((_, i) => tfs.reduce((n, tf) => (tf[i]! > 0 ? n + 1 : n), 0));
  const averageLength = matches.reduce((n, m) => n + m.tokens.length, 0) / Math.max(1, matches.length);
  const bm25 = (tf: readonly number[], length: number): number => {
    let score = 0;
    tf.forEach((f, i) => {
      if (f === 0) return;
      const df = documentFrequency[i]!;
      const idf = Math.log(1 + (matches.length - df + 0.5) / (df + 0.5));
      score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * length) / Math.max(1, averageLength)));
    });
    return squashScore(score);
  };
  return matches
    .map((m, i) => ({ record: m.record, score: query.length === 0 ? 1 : bm25(tfs[i]!, m.tokens.length) }))
    .sort((a, b) => b.score - a.score || tieBreak(a.record, b.record));
}
