/**
 * Recent order first checks the newest 1,000 rows in scope for matches
 * (queries.ts, `ORDER_WINDOW`), then asks the GIN index when they hold too
 * few: matches beyond the window, alone or with some inside it, are found
 * in the same order as the in-memory reference finds them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pgPair } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('recent order past the window of newest rows', () => {
  it('finds matches older than the newest 1,000 rows, and those inside it first', async () => {
    const pair = await pgPair();
    cleanups.push(pair.close);
    const batches: { content: string; scope?: string[] }[][] = [
      // Oldest: five matches, then 1,100 rows without one, then two matches and a few more rows.
      Array.from({ length: 5 }, (_, i) => ({ content: `needle old ${i}`, scope: ['project:a'] })),
      Array.from({ length: 1_100 }, (_, i) => ({ content: `hay ${i}`, scope: [i % 2 ? 'project:a' : 'project:b'] })),
      [{ content: 'needle new 0', scope: ['project:a'] }, { content: 'needle new 1' }, { content: 'hay last' }],
    ];
    for (const batch of batches) {
      for (const provider of [pair.memory, pair.postgres]) await provider.memory.writeMany(batch);
      for (const clock of pair.clocks) clock.advance(1_000);
    }
    const queries = [
      { query: 'needle', limit: 1 },
      { query: 'needle', limit: 3 },
      { query: 'needle', limit: 50 },
      { query: 'needl old', limit: 2 },
      { query: 'needle', limit: 4, scope: ['project:a'] },
    ];
    for (const q of queries) {
      const want = await pair.memory.memory.recall({ ...q, mode: 'lexical' });
      const got = await pair.postgres.memory.recall({ ...q, mode: 'lexical' });
      expect(got.map((h) => h.content)).toEqual(want.map((h) => h.content));
      expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
    }
    const deep = await pair.postgres.memory.recall({ query: 'needle', mode: 'lexical', limit: 3 });
    expect(deep.map((h) => h.content)).toEqual(['needle new 1', 'needle new 0', 'needle old 4']);
  });
});
