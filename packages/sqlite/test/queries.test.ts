/**
 * The query plans of lexical recall agree with each other: reading the
 * full-text index backwards (rows in recall order) and sorting every match
 * (rows out of order) return the same lists, and relevance order ranks the
 * documented window of most recent matches, breaking ties in rank as the
 * reference does even where a page ends inside a run of equal ranks.
 */
import { describe, expect, it } from 'vitest';
import { createInMemoryProvider, ManualClock } from '@agentstate/core';
import { openSqlite } from '../src/index.js';

describe('lexical query plans', () => {
  it('give the same recent-first lists whether rows arrive in recall order or not', async () => {
    const inOrder = await openSqlite(':memory:');
    const outOfOrder = await openSqlite(':memory:');
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
    const windowed = await openSqlite(':memory:', { clock, relevanceWindow: 3 });
    const exact = await openSqlite(':memory:', { clock, relevanceWindow: 0 });
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

  it('page through runs of equal bm25 ranks and skip expired items as the reference does', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const sqlite = await openSqlite(':memory:', { clock });
    const reference = createInMemoryProvider({ clock });
    const scope = ['project:a'];
    for (const p of [sqlite, reference]) {
      // Equal texts rank equal: only (createdAt, id) orders them, across every page boundary (a
      // page of SQL candidates holds 64). Written out of that order (shuffled instants, some
      // shared), so the full-text index's order is no guide.
      for (let i = 0; i < 150; i += 1) {
        const createdAt = new Date(Date.UTC(2025, 0, 1, 0, 0, (i * 7) % 10)).toISOString();
        await p.memory.write({
          id: `tied-${String((i * 13) % 150).padStart(3, '0')}`,
          content: `deploy the api ${i % 2 ? 'staging' : 'prod'}`,
          createdAt,
          scope,
        });
      }
      await p.memory.write({ id: 'short', content: 'deploy', scope });
      await p.memory.write({ id: 'elsewhere', content: 'deploy', scope: ['project:b'] });
      await p.memory.write({ id: 'expired', content: 'deploy', scope, expiresAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 5)).toISOString() });
    }
    clock.advance(60_000);
    const all = async (p: typeof reference, limit: number, where?: { kinds?: string[]; scope?: typeof scope }) => {
      const hits: { id: string; score: number; createdAt: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await p.memory.recall({ query: 'deploy api', match: 'any', order: 'relevance', limit, cursor, ...where });
        hits.push(...page.map(({ id, score, createdAt }) => ({ id, score, createdAt })));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return hits;
    };
    // Best first, then newest first, then by id descending (docs/contract.md §4).
    const ranked = (hits: { id: string; score: number; createdAt: string }[]) =>
      [...hits].sort((x, y) => y.score - x.score || y.createdAt.localeCompare(x.createdAt) || y.id.localeCompare(x.id)).map((h) => h.id);
    const expected = (await all(reference, 100, { scope })).map((h) => h.id).sort();
    expect(expected).toHaveLength(151);
    expect(expected).not.toContain('expired');
    for (const limit of [3, 70]) {
      // Without a row condition the window reads the full-text index alone; with a scope, the rowids its
      // index lists; with another, through the record table.
      for (const where of [{ scope }, { scope, kinds: ['fact'] }, { kinds: ['fact'], scope: ['project:b'] }, {}, { kinds: ['fact'] }]) {
        const hits = await all(sqlite, limit, where);
        const inScope = where.scope?.[0] === 'project:b' ? ['elsewhere'] : where.scope ? expected : [...expected, 'elsewhere'].sort();
        expect(hits.map((h) => h.id).sort(), `limit ${limit}`).toEqual(inScope);
        expect(
          hits.map((h) => h.id),
          `limit ${limit}`,
        ).toEqual(ranked(hits));
        expect(new Set(hits.map((h) => h.score)).size).toBeLessThan(5);
      }
    }
    await sqlite.close();
    await reference.close();
  });
});
