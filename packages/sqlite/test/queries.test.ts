/**
 * The query plans of lexical recall agree with each other: reading the
 * full-text index backwards (rows in recall order) and sorting every match
 * (rows out of order) return the same lists, and relevance order ranks the
 * documented window of most recent matches.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '@agentstate/core';
import { openSqlite } from '../src/index.js';

describe('lexical query plans', () => {
  it('give the same recent-first lists whether rows arrive in recall order or not', async () => {
    const inOrder = openSqlite(':memory:');
    const outOfOrder = openSqlite(':memory:');
    const instants = Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString());
    const shuffled = instants.map((_, i) => instants[(i * 7) % instants.length]!);
    for (const [i, createdAt] of instants.entries()) await inOrder.memory.write({ id: `m${createdAt}`, content: `deploy note ${i % 3}`, createdAt });
    for (const [i, createdAt] of shuffled.entries()) {
      const original = instants.indexOf(createdAt);
      await outOfOrder.memory.write({ id: `m${createdAt}`, content: `deploy note ${original % 3}`, createdAt });
      expect(i).toBeGreaterThanOrEqual(0);
    }
    for (const query of ['deploy', 'note 1', 'no', '']) {
      for (const limit of [1, 5, 100]) {
        const a = (await inOrder.memory.recall({ query, limit })).map((h) => h.id);
        const b = (await outOfOrder.memory.recall({ query, limit })).map((h) => h.id);
        expect(b, `${query} ${limit}`).toEqual(a);
        expect(a).toEqual([...a].sort().reverse());
      }
    }
    await inOrder.close();
    await outOfOrder.close();
  });

  it('rank the relevanceWindow most recent matches, or all of them with 0', async () => {
    const clock = new ManualClock();
    const windowed = openSqlite(':memory:', { clock, relevanceWindow: 3 });
    const exact = openSqlite(':memory:', { clock, relevanceWindow: 0 });
    for (const p of [windowed, exact]) {
      // bm25 needs a corpus where the term is rare, and the best match is the shortest.
      for (let i = 0; i < 20; i += 1) await p.memory.write({ id: `other-${i}`, content: `unrelated fact number ${i}` });
      await p.memory.write({ id: 'best', content: 'deploy' });
      for (let i = 0; i < 5; i += 1) await p.memory.write({ id: `later-${i}`, content: `deploy with many other words to dilute it ${i}` });
    }
    const top = async (p: typeof exact) => (await p.memory.recall({ query: 'deploy', order: 'relevance', limit: 10 })).map((h) => h.id);
    expect((await top(exact))[0]).toBe('best');
    expect(await top(exact)).toHaveLength(6);
    expect(await top(windowed)).toHaveLength(3);
    expect(await top(windowed)).not.toContain('best');
    await windowed.close();
    await exact.close();
  });
});
