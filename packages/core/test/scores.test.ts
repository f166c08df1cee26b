/**
 * Properties of recall scores (docs/contract.md §6): every score lies in
 * [0, 1], only items that match are hits (a lexical match or a similarity
 * above 0), raising minScore never adds a hit, and the hybrid score is
 * monotone in each leg and never below a leg of weight 1.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { combineScores } from '../src/embedding/fusion.js';
import { matchesAnyToken, matchesTokens, queryTokens, tokenize } from '../src/matching/lexical.js';
import type { Embedder } from '../src/index.js';
import { createInMemoryProvider } from '../src/index.js';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const anyScore = fc.oneof(unit, fc.double({ noNaN: false }));
const weight = fc.double({ min: 0, max: 4, noNaN: true });
const weights = fc.record({ lexical: weight, semantic: weight });

describe('combineScores', () => {
  it('lies in [0, 1] for any leg scores and weights', () => {
    fc.assert(
      fc.property(anyScore, anyScore, weights, (l, s, w) => {
        const score = combineScores(l, s, w);
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('is monotone in each leg', () => {
    fc.assert(
      fc.property(unit, unit, unit, unit, weights, (l1, l2, s1, s2, w) => {
        const [lo, hi] = l1 <= l2 ? [l1, l2] : [l2, l1];
        expect(combineScores(hi, s1, w)).toBeGreaterThanOrEqual(combineScores(lo, s1, w));
        const [slo, shi] = s1 <= s2 ? [s1, s2] : [s2, s1];
        expect(combineScores(l1, shi, w)).toBeGreaterThanOrEqual(combineScores(l1, slo, w));
      }),
    );
  });

  it('is never below a leg whose weight is at least 1, so a perfect match scores 1', () => {
    fc.assert(
      fc.property(unit, unit, fc.double({ min: 1, max: 4, noNaN: true }), weight, (l, s, wl, ws) => {
        expect(combineScores(l, s, { lexical: wl, semantic: ws })).toBeGreaterThanOrEqual(l - 1e-12);
        expect(combineScores(1, s, { lexical: wl, semantic: ws })).toBe(1);
      }),
    );
  });
});

/** Each word lands in one of four dimensions, so random texts have every similarity from 0 to 1. */
const wordEmbedder: Embedder = {
  id: 'words-4d',
  dimensions: 4,
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(4);
      for (const token of tokenize(t)) v[token.length % 4]! += 1;
      return v;
    });
  },
};

const WORDS = ['a', 'go', 'cat', 'dark', 'mode', 'theme', 'deploy', 'friday', 'espresso'];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));

describe('recall scores', () => {
  it('lie in [minScore, 1] in every mode, and raising minScore never adds a hit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 8 }),
        text,
        fc.constantFrom('lexical', 'semantic', 'hybrid'),
        unit,
        unit,
        async (contents, query, mode, a, b) => {
          const p = createInMemoryProvider({ embedder: wordEmbedder });
          for (const content of contents) await p.memory.write({ content });
          const [low, high] = a <= b ? [a, b] : [b, a];
          const recall = (minScore: number) => p.memory.recall({ query, mode, order: 'relevance', minScore, limit: 50 });
          const loose = await recall(low);
          const strict = await recall(high);
          for (const h of [...loose, ...strict]) expect(h.score).toBeLessThanOrEqual(1);
          for (const h of loose) expect(h.score).toBeGreaterThanOrEqual(low);
          for (const h of strict) expect(h.score).toBeGreaterThanOrEqual(high);
          expect(loose.map((h) => h.id)).toEqual(expect.arrayContaining(strict.map((h) => h.id)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('belong only to items that match, in every mode: a lexical match, or a similarity above 0', async () => {
    // The word embedder's vectors have no negative component: two texts are at right angles exactly when no word length agrees mod 4.
    const dims = (t: string) => new Set(tokenize(t).map((w) => w.length % 4));
    const close = (a: string, b: string) => [...dims(a)].some((d) => dims(b).has(d));
    const sharesAll = (q: string, t: string) => matchesTokens(queryTokens(q)!, tokenize(t));
    const sharesAny = (q: string, t: string) => matchesAnyToken(queryTokens(q)!, tokenize(t));
    const matches = { lexical: sharesAll, semantic: close, hybrid: (q: string, t: string) => sharesAny(q, t) || close(q, t) };
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 8 }),
        text,
        fc.constantFrom('lexical', 'semantic', 'hybrid'),
        async (contents, query, mode) => {
          const p = createInMemoryProvider({ embedder: wordEmbedder });
          const ids = new Map<string, string>();
          for (const content of contents) ids.set((await p.memory.write({ content })).id, content);
          const hits = await p.memory.recall({ query, mode, order: 'relevance', limit: 50 });
          for (const h of hits) expect(h.score).toBeGreaterThan(0);
          const want = [...ids].filter(([, content]) => matches[mode](query, content)).map(([id]) => id);
          expect(hits.map((h) => h.id).sort()).toEqual(want.sort());
        },
      ),
      { numRuns: 60 },
    );
  });
});
