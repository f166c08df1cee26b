/**
 * Pages on SQLite beyond the page-size ceiling: a real database file holding
 * more memory items than `LIMITS.pageSize` (one recall can return at most
 * that many) is enumerated completely by following cursors, newest first,
 * with writes landing between the pages. The file is built by importing an
 * export (the bulk path), which keeps the test fast.
 */
import { createInMemoryProvider, exportLog, LIMITS, ManualClock, seededEntropy } from '@agentstate/core';
import type { Page, RecallHit } from '@agentstate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { importSqlite, openSqlite } from '../src/index.js';
import { tempDir } from './helpers.js';

const COUNT = LIMITS.pageSize + 25;
const tmp = tempDir('agentstate-pages-');
afterAll(() => tmp.cleanup());

async function exportedLines(): Promise<{ lines: string[]; ids: string[] }> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(3), instanceId: 'pages' });
  const ids: string[] = [];
  for (let i = 0; i < COUNT; i += 1) {
    // Several items per millisecond: ties on createdAt are broken by id.
    if (i % 3 === 0) clock.advance(1);
    ids.push((await p.memory.write({ content: `fact number ${i}`, kind: i % 2 === 0 ? 'even' : 'odd' })).id);
  }
  const lines: string[] = [];
  await exportLog(p.log, (chunk) => {
    lines.push(...chunk.split('\n').filter((line) => line !== ''));
  });
  await p.close();
  return { lines, ids };
}

describe('pages on SQLite', () => {
  it(`enumerates ${COUNT} memory items (more than LIMITS.pageSize) through cursors, with writes between pages`, async () => {
    const { lines, ids } = await exportedLines();
    const path = tmp.file('many.db');
    await importSqlite(path, lines);
    const p = await openSqlite(path);
    try {
      const first = await p.memory.recall({ query: 'fact', mode: 'lexical', limit: LIMITS.pageSize });
      expect(first).toHaveLength(LIMITS.pageSize);
      expect(first.nextCursor).toBeDefined();
      // A write between pages lands before the cursor (it is newer) and does not shift the rest.
      const added = await p.memory.write({ content: 'fact written between pages' });
      const rest: Page<RecallHit>[] = [];
      let cursor = first.nextCursor;
      while (cursor !== undefined) {
        const page = await p.memory.recall({ query: 'fact', mode: 'lexical', limit: 10, cursor });
        rest.push(page);
        cursor = page.nextCursor;
      }
      const seen = [...first, ...rest.flat()].map((h) => h.id);
      expect(seen).toEqual([...ids].reverse());
      expect(seen).not.toContain(added.id);

      // Without query text, and filtered by kind: the index plans page the same way.
      const evens: string[] = [];
      cursor = undefined;
      do {
        const page = await p.memory.recall({ kinds: ['even'], mode: 'lexical', limit: 4_000, cursor });
        evens.push(...page.map((h) => h.id));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(evens).toEqual(ids.filter((_, i) => i % 2 === 0).reverse());
    } finally {
      await p.close();
    }
  });
});
