/**
 * Metadata filters in SQL agree with core's matcher (the reference), on
 * generated metadata and filters, through every plan recall takes (listing,
 * full-text, relevance) and after updates rewrote an item's metadata rows.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { MemoryItem } from '@agentstate/core';
import { matchesWhere, whereInputSchema } from '@agentstate/core';
import { arbMetadata, arbWhere } from '@agentstate/testing/arbitraries';
import { rowCodec } from '@agentstate/core/backend';
import { openSqlite } from '../src/index.js';

describe('metadata filters in SQLite', () => {
  it('return exactly the items core’s matcher accepts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbMetadata(), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(11), arbMetadata()), { maxLength: 4 }),
        fc.array(arbWhere(), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(undefined, 'note', 'note other'),
        async (metadata, updates, filters, query) => {
          const p = await openSqlite(':memory:');
          try {
            const items: MemoryItem[] = [];
            for (const [i, m] of metadata.entries()) items.push(await p.memory.write({ content: i % 2 === 0 ? 'note' : 'note other', metadata: m }));
            for (const [i, m] of updates) {
              const at = i % items.length;
              items[at] = await p.memory.update(items[at]!.id, { metadata: m });
            }
            for (const where of filters) {
              const filter = whereInputSchema.parse(where);
              const expected = items.filter((item) => (query !== 'note other' || item.content === 'note other') && matchesWhere(item.metadata, filter));
              const got = await p.memory.recall({ query, where, limit: 100, mode: 'lexical', order: query === undefined ? 'recent' : 'relevance' });
              expect(got.map((h) => h.id).sort(), JSON.stringify(where)).toEqual(expected.map((item) => item.id).sort());
            }
          } finally {
            await p.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('store one row per node reached through objects, never inside arrays', () => {
    expect(rowCodec.metadataLeaves({ a: { b: [1, { c: 2 }] }, d: null, e: true })).toEqual([
      { path: '["a"]', type: 'object', value: null },
      { path: '["a","b"]', type: 'array', value: null },
      { path: '["d"]', type: 'null', value: null },
      { path: '["e"]', type: 'boolean', value: 1 },
    ]);
  });
});
