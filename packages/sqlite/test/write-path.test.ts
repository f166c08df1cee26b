/**
 * The write path's bookkeeping, written in SQL so that it agrees with the
 * order SQLite itself reads rows in.
 */
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import { deterministic } from './helpers.js';

describe('memory recall order', () => {
  it('is tracked in the byte order SQLite sorts ids by, not in JavaScript string order', async () => {
    // Same createdAt; U+1F600 sorts before U+FF61 in UTF-16 code units but after it in UTF-8 bytes.
    const state = openSqlite(':memory:', deterministic());
    await state.memory.write({ id: 'm\u{1F600}', content: 'alpha' });
    await state.memory.write({ id: 'm\u{FF61}', content: 'alpha' });
    const report = await state.verify();
    expect(report.problems).toEqual([]);
    const ids = (await state.memory.recall({ query: 'alpha' })).map((hit) => hit.id);
    expect(ids).toEqual(['m\u{1F600}', 'm\u{FF61}']);
    await state.close();
  });
});
