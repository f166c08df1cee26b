/**
 * Semantic and hybrid recall on sqlite-vec: vectors computed after the
 * write, cached by (embedder id, content hash), filtered by scope and kind,
 * dropped with the tombstone, and re-created by `rebuild()` from the cache
 * without calling the embedder again. Results agree with the in-memory reference.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import { bagOfWordsEmbedder, pair, tempDir } from './helpers.js';

const FACTS = [
  { content: 'the user prefers dark mode in the editor', scope: [], kind: 'preference' },
  { content: 'dark mode everywhere please', scope: ['project:p'], kind: 'preference' },
  { content: 'deploys go out on friday afternoon', scope: ['project:p'], kind: 'fact' },
  { content: 'the staging database is postgres', scope: [], kind: 'fact' },
  { content: 'the user prefers dark mode in the editor', scope: ['project:q'], kind: 'fact' },
];

async function seeded(embedder = bagOfWordsEmbedder()) {
  const p = await openSqlite(':memory:', { embedder });
  const items = [];
  for (const f of FACTS) items.push(await p.memory.write(f));
  return { p, items, embedder };
}

describe('vectors', () => {
  it('embed outside the write and reuse the cache for equal content', async () => {
    const { p, embedder } = await seeded();
    // Five writes, four distinct contents: the repeated one comes from the cache.
    expect(embedder.texts).toBe(4);
    const hits = await p.memory.recall({ query: 'dark mode', mode: 'semantic', minScore: 0.3 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]!.content).toMatch(/dark mode/);
    for (const h of hits) expect(h.score).toBeGreaterThanOrEqual(0.3);
    await p.close();
  });

  it('filter nearest neighbours by scope and kind', async () => {
    const { p } = await seeded();
    const scoped = await p.memory.recall({ query: 'dark mode', mode: 'semantic', scope: ['project:p'], minScore: 0.3 });
    expect(scoped.map((h) => h.content)).toEqual(['dark mode everywhere please']);
    const kinds = await p.memory.recall({ query: 'dark mode editor', mode: 'semantic', kinds: ['fact'] });
    expect(kinds.every((h) => h.kind === 'fact')).toBe(true);
    expect(kinds[0]!.scope).toEqual(['project:q']);
    const everywhere = await p.memory.recall({ query: 'dark mode', mode: 'semantic' });
    const below = await p.memory.recall({ query: 'dark mode', mode: 'semantic', scope: [], includeDescendants: true });
    expect(below.map((h) => h.id).sort()).toEqual(everywhere.map((h) => h.id).sort());
    const underP = await p.memory.recall({ query: 'dark mode', mode: 'semantic', scope: ['project:p'], includeDescendants: true, minScore: 0.3 });
    expect(underP.map((h) => h.content)).toEqual(['dark mode everywhere please']);
    await p.close();
  });

  it('fuse lexical and vector ranks with scores in hybrid mode', async () => {
    const { p } = await seeded();
    const hits = await p.memory.recall({ query: 'prefers dark', order: 'relevance' });
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) {
      expect(h.score).toBeGreaterThanOrEqual(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
    expect(hits[0]!.content).toMatch(/prefers dark/);
    await p.close();
  });

  it('drop the vector with the tombstone', async () => {
    const { p, items } = await seeded();
    await p.memory.delete(items[1]!.id);
    const hits = await p.memory.recall({ query: 'dark mode everywhere', mode: 'semantic' });
    expect(hits.map((h) => h.id)).not.toContain(items[1]!.id);
    await p.close();
  });

  it('re-create vectors on rebuild from the cache, without embedding again', async () => {
    const { p, embedder } = await seeded();
    const before = await p.memory.recall({ query: 'dark mode', mode: 'semantic' });
    const calls = embedder.texts;
    await p.rebuild();
    const after = await p.memory.recall({ query: 'dark mode', mode: 'semantic' });
    expect(after).toEqual(before);
    // Only the query itself was embedded.
    expect(embedder.texts).toBe(calls + 1);
    await p.close();
  });

  it('catch up items written without an embedder', async () => {
    const path = ':memory:';
    const plain = await openSqlite(path);
    await plain.close();
    const { p } = await seeded();
    expect(await p.memory.recall({ query: 'postgres', mode: 'semantic', minScore: 0.3 })).toHaveLength(1);
    await p.close();
  });

  it('derive the vector again when another provider on the file updates an item', async () => {
    const dir = tempDir();
    try {
      const path = dir.file();
      const a = await openSqlite(path, { embedder: bagOfWordsEmbedder() });
      const item = await a.memory.write({ content: 'the staging database is postgres' });
      expect((await a.memory.recall({ query: 'postgres', mode: 'semantic' })).map((h) => h.id)).toEqual([item.id]);
      const b = await openSqlite(path);
      await b.memory.update(item.id, { content: 'deploys go out on friday' });
      await b.close();
      expect((await a.memory.recall({ query: 'friday deploys', mode: 'semantic' })).map((h) => h.id)).toEqual([item.id]);
      await a.close();
    } finally {
      dir.cleanup();
    }
  });

  it('leave out expired items and items whose metadata does not match, in semantic and hybrid recall', async () => {
    const p = await openSqlite(':memory:', { embedder: bagOfWordsEmbedder() });
    const kept = await p.memory.write({ content: 'dark mode in the editor', metadata: { tag: 'ui' } });
    await p.memory.write({ content: 'dark mode in the terminal', metadata: { tag: 'cli' } });
    await p.memory.write({ content: 'dark mode everywhere', metadata: { tag: 'ui' }, expiresAt: '2000-01-01T00:00:00Z' });
    for (const mode of ['semantic', 'hybrid'] as const) {
      expect(
        (await p.memory.recall({ query: 'dark mode', mode, where: { tag: 'ui' } })).map((h) => h.id),
        mode,
      ).toEqual([kept.id]);
    }
    await p.close();
  });

  it('agree with the in-memory reference on semantic and hybrid recall', async () => {
    const embedder = bagOfWordsEmbedder(32);
    const { memory, sqlite, close } = await pair(':memory:', { embedder });
    for (const f of FACTS) {
      await memory.memory.write(f);
      await sqlite.memory.write(f);
    }
    for (const query of ['dark mode', 'prefers dark editor', 'friday deploys', 'postgres', 'nothing like it']) {
      for (const mode of ['semantic', 'hybrid'] as const) {
        const a = await memory.memory.recall({ query, mode, order: 'relevance' });
        const b = await sqlite.memory.recall({ query, mode, order: 'relevance' });
        expect(b.map((h) => h.id).sort(), `${mode} ${query}`).toEqual(a.map((h) => h.id).sort());
        if (mode === 'semantic') for (const [i, h] of b.entries()) expect(h.score).toBeCloseTo(a[i]!.score, 5);
      }
    }
    await close();
  });

  it('refuse vectors of another dimension under the same embedder id with a ValidationError', async () => {
    const tmp = tempDir();
    try {
      const first = await openSqlite(tmp.file(), { embedder: bagOfWordsEmbedder(16, 'shared-id') });
      await first.memory.write({ content: 'dark mode' });
      await first.close();
      const errors: unknown[] = [];
      const second = await openSqlite(tmp.file(), { embedder: bagOfWordsEmbedder(8, 'shared-id'), onBackgroundError: (e) => errors.push(e) });
      await second.memory.write({ content: 'light mode' });
      expect(errors[0]).toBeInstanceOf(ValidationError);
      await expect(second.memory.recall({ query: 'mode', mode: 'semantic' })).rejects.toBeInstanceOf(ValidationError);
      // The write itself stands: embeddings are best effort.
      expect(await second.memory.recall({ query: 'light', mode: 'lexical' })).toHaveLength(1);
      await second.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('need no embedder for lexical recall, which stays the default without one', async () => {
    const p = await openSqlite(':memory:');
    await p.memory.write({ content: 'dark mode' });
    expect(await p.memory.recall({ query: 'dark' })).toHaveLength(1);
    expect(await p.memory.recall({ query: 'night' })).toEqual([]);
    await p.close();
  });
});
