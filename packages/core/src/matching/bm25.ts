/**
 * BM25 over prefix-matched tokens, for relevance order in backends without a
 * full-text engine of their own. Scores are squashed into [0, 1).
 */

/** BM25 term-frequency saturation. */
const K1 = 1.2;
/** BM25 length normalisation. */
const B = 0.75;

/** Corpus statistics for one query over the candidate documents. */
export interface Bm25Corpus {
  /** Number of documents considered. */
  documents: number;
  /** Average document length in tokens. */
  averageLength: number;
  /** For each query token, in how many documents some token starts with it. */
  documentFrequency: readonly number[];
}

/** How often each query token prefixes a token of the document. */
export function termFrequencies(query: readonly string[], documentTokens: readonly string[]): number[] {
  return query.map((q) => documentTokens.reduce((n, t) => (t.startsWith(q) ? n + 1 : n), 0));
}

/** Squashes a non-negative relevance score into [0, 1) by `s / (1 + s)`; every backend reports scores this way. */
export function squashScore(score: number): number {
  const s = Math.max(0, score);
  return s / (1 + s);
}

/** The BM25 score of one document, squashed by {@link squashScore} into [0, 1). */
export function bm25Score(corpus: Bm25Corpus, tf: readonly number[], documentLength: number): number {
  let score = 0;
  tf.forEach((f, i) => {
    if (f === 0) return;
    const df = corpus.documentFrequency[i] ?? 0;
    const idf = Math.log(1 + (corpus.documents - df + 0.5) / (df + 0.5));
    const norm = f + K1 * (1 - B + (B * documentLength) / Math.max(1, corpus.averageLength));
    score += (idf * f * (K1 + 1)) / norm;
  });
  return squashScore(score);
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
