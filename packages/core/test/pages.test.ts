/**
 * The cursor module: keys compare like the orders they stand for, cursors
 * round-trip and bind to their query, and semantic recall pages
 * by (score, then newest) through the rankers' growing depth.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInMemoryProvider, ManualClock, ValidationError } from '../src/index.js';
import type { Embedder } from '../src/index.js';
import { compareStrings } from '../src/backend.js';
import { tokenize } from '../src/matching/lexical.js';
import { compareKeys, NUMBER_DESC, openPager, TEXT_ASC } from '../src/paging/cursor.js';

const ORDER = [NUMBER_DESC, TEXT_ASC];
const spec = (query: unknown) => ({ method: 'test.list', query, order: ORDER, key: (x: { score: number; id: string }) => [x.score, x.id] });

describe('cursors', () => {
  it('page a sorted list into consecutive slices whatever the page size (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string(), { maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 7 }),
        (ids, scores, size) => {
          const items = ids.map((id, i) => ({ id, score: scores[i] ?? 0 })).sort((a, b) => b.score - a.score || compareStrings(a.id, b.id));
          const out: string[] = [];
          let cursor: string | undefined;
          do {
            const pager = openPager(spec({ q: 1 }), cursor);
            const page = pager.page(items.filter((x) => pager.isAfter(x)).slice(0, size + 1), size);
            out.push(...page.map((x) => x.id));
            cursor = page.nextCursor;
          } while (cursor !== undefined);
          expect(out).toEqual(items.map((x) => x.id));
          for (let i = 1; i < items.length; i += 1)
            expect(compareKeys(ORDER, [items[i - 1]!.score, items[i - 1]!.id], [items[i]!.score, items[i]!.id])).toBeLessThan(0);
        },
      ),
    );
  });

  it('refuse a cursor of another query or method, naming cursor', () => {
    const cursor = openPager(spec({ q: 1 }), undefined).page(
      [
        { id: 'a', score: 1 },
        { id: 'b', score: 1 },
      ],
      1,
    ).nextCursor;
    expect(cursor).toBeDefined();
    expect(openPager(spec({ q: 1 }), cursor).after).toEqual([1, 'a']);
    expect(() => openPager(spec({ q: 2 }), cursor)).toThrow(ValidationError);
    expect(() => openPager({ ...spec({ q: 1 }), method: 'test.other' }, cursor)).toThrow(/cursor/);
  });
});

/** Each text's vector counts its words in three topics. */
const TOPICS: Record<string, number> = { dark: 0, theme: 0, mode: 0, night: 0, deploy: 1, ship: 1 };
const toyEmbedder: Embedder = {
  id: 'toy-3d',
  dimensions: 3,
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(3);
      v[2] = 0.05;
      for (const token of tokenize(t)) {
        const topic = TOPICS[token];
        if (topic !== undefined) v[topic]! += 1;
      }
      return v;
    });
  },
};

describe('semantic recall pages', () => {
  it('semantic: enumerates exactly the unpaged ranking, beyond the first ranker depth', async () => {
    const clock = new ManualClock();
    const p = createInMemoryProvider({ clock, embedder: toyEmbedder });
    for (let i = 0; i < 130; i += 1) {
      if (i % 4 === 0) clock.advance(1);
      await p.memory.write({ content: `${'dark '.repeat(1 + (i % 5))}theme ${i % 2 === 0 ? 'deploy' : 'night'} ${i}` });
    }
    for (const mode of ['semantic'] as const) {
      const all = await p.memory.recall({ query: 'dark theme', mode, limit: 1_000 });
      expect(all.length).toBe(130);
      const paged = [];
      let cursor: string | undefined;
      do {
        const page = await p.memory.recall({ query: 'dark theme', mode, limit: 7, cursor });
        paged.push(...page);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(paged.map((h) => [h.id, h.score])).toEqual(all.map((h) => [h.id, h.score]));
    }
  });
});
