import { describe, expect, it } from 'vitest';
import { createInMemoryProvider, defaultRecallMode, defaultRecallOrder, ManualClock } from '../src/index.js';
import { fuseLegs } from '../src/embedding/fusion.js';
import { tokenize } from '../src/matching/lexical.js';
import type { Embedder } from '../src/index.js';

/** A tiny embedder with a hand-made synonym space, enough to show fusion at work. */
const TOPICS: Record<string, number> = { dark: 0, theme: 0, mode: 0, night: 0, deploy: 1, ship: 1, release: 1, coffee: 2, espresso: 2 };
const toyEmbedder: Embedder = {
  id: 'toy-3d',
  dimensions: 3,
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(3);
      for (const token of tokenize(t)) {
        const topic = TOPICS[token];
        if (topic !== undefined) v[topic]! += 1;
      }
      return v;
    });
  },
};

describe('recall', () => {
  it('is lexical and newest first without an embedder, with score 1', async () => {
    const clock = new ManualClock();
    const p = createInMemoryProvider({ clock });
    await p.memory.write({ content: 'deploy on monday' });
    clock.advance(1);
    await p.memory.write({ content: 'deploy on friday', kind: 'rule' });
    const hits = await p.memory.recall({ query: 'deploy' });
    expect(hits.map((h) => [h.content, h.score])).toEqual([
      ['deploy on friday', 1],
      ['deploy on monday', 1],
    ]);
    expect((await p.memory.recall({ query: 'deploy', kinds: ['rule'] })).map((h) => h.content)).toEqual(['deploy on friday']);
  });

  it('orders by lexical relevance with scores in [0, 1]', async () => {
    const p = createInMemoryProvider();
    await p.memory.write({ content: 'coffee coffee coffee' });
    await p.memory.write({ content: 'a long note that mentions coffee once among many other words here' });
    const hits = await p.memory.recall({ query: 'coffee', order: 'relevance' });
    expect(hits[0]!.content).toBe('coffee coffee coffee');
    for (const h of hits) expect(h.score).toBeGreaterThan(0);
    for (const h of hits) expect(h.score).toBeLessThanOrEqual(1);
  });

  it('finds semantically close items in hybrid mode and fuses both rankings', async () => {
    const p = createInMemoryProvider({ embedder: toyEmbedder });
    await p.memory.write({ content: 'the user prefers dark mode' });
    await p.memory.write({ content: 'ship every friday' });
    await p.memory.write({ content: 'espresso is the office drink' });
    const lexical = await p.memory.recall({ query: 'night theme', mode: 'lexical' });
    expect(lexical).toEqual([]);
    const hybrid = await p.memory.recall({ query: 'night theme', order: 'relevance', minScore: 0.5 });
    expect(hybrid.map((h) => h.content)).toEqual(['the user prefers dark mode']);
    expect(hybrid[0]!.score).toBeGreaterThan(0);
    const semantic = await p.memory.recall({ query: 'release', mode: 'semantic', minScore: 0.5 });
    expect(semantic.map((h) => h.content)).toEqual(['ship every friday']);
    expect(semantic[0]!.score).toBeCloseTo(1, 5);
  });

  it('returns only items that match: a semantic similarity of 0 is no hit, and minScore cuts among the matches', async () => {
    const p = createInMemoryProvider({ embedder: toyEmbedder });
    await p.memory.write({ content: 'ship every friday' });
    await p.memory.write({ content: 'espresso is the office drink' });
    await p.memory.write({ content: 'a dark night' });
    // Orthogonal to two items in the toy space: similarity 0, so only the third is a hit, in every mode.
    for (const mode of ['semantic', 'hybrid'] as const) {
      expect(
        (await p.memory.recall({ query: 'dark', mode })).map((h) => h.content),
        mode,
      ).toEqual(['a dark night']);
    }
    expect(await p.memory.recall({ query: 'kubernetes', mode: 'semantic' })).toEqual([]);
    expect(await p.memory.recall({ query: 'release', mode: 'semantic', minScore: 0.5 })).toHaveLength(1);
  });

  it('scores a lexical match the semantic leg misses exactly as lexical mode does', async () => {
    const p = createInMemoryProvider({ embedder: toyEmbedder });
    // No word of this item is in the toy space: the semantic leg gives it similarity 0.
    await p.memory.write({ content: 'kubernetes' });
    const [lexical] = await p.memory.recall({ query: 'kubernetes', mode: 'lexical', order: 'relevance' });
    const [hybrid] = await p.memory.recall({ query: 'kubernetes', mode: 'hybrid' });
    expect(hybrid!.score).toBeCloseTo(lexical!.score, 12);
  });

  it('with an embedder, answers a question best first and lists newest first, unless told otherwise', async () => {
    const clock = new ManualClock();
    const p = createInMemoryProvider({ clock, embedder: toyEmbedder });
    const best = await p.memory.write({ content: 'dark theme, dark mode at night' });
    clock.advance(1);
    const newer = await p.memory.write({ content: 'the theme of the release' });
    const ids = (hits: { id: string }[]): string[] => hits.map((h) => h.id);
    expect(ids(await p.memory.recall({ query: 'dark theme' }))).toEqual([best.id, newer.id]);
    expect(ids(await p.memory.recall({ query: 'dark theme', mode: 'semantic' }))).toEqual([best.id, newer.id]);
    expect(ids(await p.memory.recall({ query: 'dark theme', order: 'recent' }))).toEqual([newer.id, best.id]);
    expect(ids(await p.memory.recall({ query: 'theme', mode: 'lexical' }))).toEqual([newer.id, best.id]);
    expect(ids(await p.memory.recall())).toEqual([newer.id, best.id]);
  });

  it('forgets the vectors of tombstoned items', async () => {
    const p = createInMemoryProvider({ embedder: toyEmbedder });
    const item = await p.memory.write({ content: 'dark mode please' });
    await p.memory.delete(item.id);
    expect(await p.memory.recall({ query: 'night', mode: 'semantic' })).toEqual([]);
  });
});

describe('recall defaults', () => {
  it('are hybrid with an embedder, else lexical', () => {
    expect(defaultRecallMode(true)).toBe('hybrid');
    expect(defaultRecallMode(false)).toBe('lexical');
  });

  it('order by relevance only what is ranked by meaning: semantic or hybrid recall with query text', () => {
    expect(defaultRecallOrder('hybrid', 'dark theme')).toBe('relevance');
    expect(defaultRecallOrder('semantic', 'dark')).toBe('relevance');
    expect(defaultRecallOrder('lexical', 'dark theme')).toBe('recent');
    for (const query of [undefined, '', '  ', '?!']) {
      expect(defaultRecallOrder('hybrid', query)).toBe('recent');
      expect(defaultRecallOrder('semantic', query)).toBe('recent');
    }
  });
});

describe('fuseLegs', () => {
  it('combines the legs as 1 − (1 − lexical)^wₗ · (1 − semantic)^wₛ, best first, keeping each leg', () => {
    const fused = fuseLegs(
      [
        { id: 'a', score: 0.5 },
        { id: 'b', score: 1 },
      ],
      [
        { id: 'a', score: 0.5 },
        { id: 'c', score: -0.2 },
      ],
      { lexical: 1, semantic: 2 },
    );
    // c: a negative similarity and no lexical match, so no hit.
    expect(fused.map((f) => f.id)).toEqual(['b', 'a']);
    // A perfect lexical match the semantic leg missed still scores 1.
    expect(fused[0]).toEqual({ id: 'b', score: 1, legs: { lexical: 1, semantic: 0 } });
    expect(fused[1]!.score).toBeCloseTo(1 - 0.5 * 0.25, 12);
  });
});

describe('the default embedder', () => {
  it('is loaded once, only for explicit semantic or hybrid recall', async () => {
    let loads = 0;
    const p = createInMemoryProvider({
      defaultEmbedder: () => {
        loads += 1;
        return toyEmbedder;
      },
    });
    await p.memory.write({ content: 'the user prefers dark mode' });
    expect(await p.memory.recall({ query: 'night' })).toEqual([]);
    expect(loads).toBe(0);
    const [semantic, hybrid] = await Promise.all([p.memory.recall({ query: 'night', mode: 'semantic' }), p.memory.recall({ query: 'night', mode: 'hybrid' })]);
    expect(semantic.map((h) => h.content)).toEqual(['the user prefers dark mode']);
    expect(hybrid.map((h) => h.content)).toEqual(['the user prefers dark mode']);
    expect(loads).toBe(1);
  });
});
