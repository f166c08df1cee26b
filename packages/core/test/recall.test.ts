import { describe, expect, it } from 'vitest';
import { createInMemoryProvider, defaultRecallMode, defaultRecallOrder, ManualClock } from '../src/index.js';
import { reciprocalRankFusion, tokenize } from '../src/backend.js';
import type { Embedder } from '../src/index.js';

/** A tiny embedder with a hand-made synonym space, enough to show fusion at work. */
const TOPICS: Record<string, number> = { dark: 0, theme: 0, mode: 0, night: 0, deploy: 1, ship: 1, release: 1, coffee: 2, espresso: 2 };
const toyEmbedder: Embedder = {
  id: 'toy-3d',
  dimensions: 3,
  similarityThreshold: 0.5,
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
    const hybrid = await p.memory.recall({ query: 'night theme', order: 'relevance' });
    expect(hybrid.map((h) => h.content)).toEqual(['the user prefers dark mode']);
    expect(hybrid[0]!.score).toBeGreaterThan(0);
    const semantic = await p.memory.recall({ query: 'release', mode: 'semantic' });
    expect(semantic.map((h) => h.content)).toEqual(['ship every friday']);
    expect(semantic[0]!.score).toBeCloseTo(1, 5);
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

describe('reciprocalRankFusion', () => {
  it('rewards items ranked well by both lists and normalises to 1', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['a', 'c'],
    ]);
    expect(fused.map((f) => f.id)).toEqual(['a', 'c', 'b']);
    expect(fused[0]!.score).toBe(1);
    expect(fused[0]!.ranks).toEqual([1, 1]);
    expect(fused[2]!.ranks).toEqual([2, undefined]);
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
