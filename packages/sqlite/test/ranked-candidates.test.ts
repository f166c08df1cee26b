/**
 * A relevance page read in one pass (the best ranks down to a slack past
 * the page's last, see `rankedCandidates`) is the page the full statement gives: the live rows
 * ranked no worse than the page's last, in rank then tie-break order, with
 * runs of equal ranks on either side of the page's edge.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareStrings } from '@agentstate/core/backend';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from '../src/connection.js';
import { rankedCandidates, verifiedPages } from '../src/candidates.js';

interface Row {
  n: number;
  id: string;
  created_at: string;
  deleted: number;
  rank: number;
}

/** The page by its definition: live rows no worse than the depth-th best rank, by rank, then newest first. */
function expected(rows: readonly Row[], limit: number, offset: number): string[] {
  const ranks = rows.map((r) => r.rank).sort((a, b) => a - b);
  const cut = ranks[Math.min(offset + limit, ranks.length) - 1] ?? -Infinity;
  return rows
    .filter((r) => r.deleted === 0 && r.rank <= cut)
    .sort((a, b) => a.rank - b.rank || compareStrings(b.created_at, a.created_at) || compareStrings(b.id, a.id))
    .slice(offset, offset + limit)
    .map((r) => r.id);
}

/** Up to 90 rows over 1–12 distinct ranks: runs of ties both shorter and longer than the slack a page reads. */
const rowsArb = fc
  .integer({ min: 0, max: 11 })
  .chain((ranks) =>
    fc.array(
      fc.record({
        rank: fc.integer({ min: -ranks, max: 0 }).map((x) => x / 2),
        created: fc.integer({ min: 0, max: 5 }),
        // Ids whose UTF-16 order differs from SQLite's byte order (an astral character against U+FB01).
        prefix: fc.constantFrom('', 'a', 'Z', 'é', '😀', 'ﬁ'),
        deleted: fc.integer({ min: 0, max: 5 }).map((x) => (x === 0 ? 1 : 0)),
      }),
      { maxLength: 90, size: 'max' },
    ),
  )
  .map((rs) =>
    rs.map((r, i) => ({ n: i + 1, id: `${r.prefix}${String(i).padStart(2, '0')}`, created_at: `2026-01-0${r.created + 1}`, deleted: r.deleted, rank: r.rank })),
  );

describe('ranked candidates', () => {
  it('read a page in one pass exactly as the full statement does, ties across the edge included', () => {
    const conn = Connection.open(':memory:', DEFAULT_CONNECTION_OPTIONS);
    conn.db.exec('CREATE TABLE docs (n INTEGER PRIMARY KEY, id TEXT NOT NULL, created_at TEXT NOT NULL, deleted INTEGER NOT NULL, score REAL NOT NULL)');
    const newestFirst = (a: Row, b: Row) => compareStrings(b.created_at, a.created_at) || compareStrings(b.id, a.id);
    const built = rankedCandidates<Row>('SELECT n, score AS rank FROM docs', 'docs', 'd', 'd.created_at DESC, d.id DESC', newestFirst);
    const insert = conn.db.prepare('INSERT INTO docs VALUES (?, ?, ?, ?, ?)');
    let fastPaths = 0;
    let fullPaths = 0;
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 30 }), (rows, limit, offset) => {
        conn.db.exec('DELETE FROM docs');
        for (const r of rows) insert.run(r.n, r.id, r.created_at, r.deleted, r.rank);
        const page = built.read!(conn, [], limit, offset) as Row[];
        const fullPage = conn.prepare(built.sql).all(...built.page!(limit, offset)) as Row[];
        expect(page.map((r) => r.id)).toEqual(expected(rows, limit, offset));
        expect(page).toEqual(fullPage);
        // The one-pass read is exact unless the ranks it keeps (the page's depth plus 32) all tie with the page's last.
        const sorted = rows.map((r) => r.rank).sort((a, b) => a - b);
        const fetched = offset + limit + 32;
        if (sorted.length >= fetched && sorted[fetched - 1] === sorted[offset + limit - 1]) fullPaths += 1;
        else fastPaths += 1;
      }),
      { numRuns: 500 },
    );
    // Both ways of reading were exercised.
    expect(fastPaths).toBeGreaterThan(50);
    expect(fullPaths).toBeGreaterThan(5);
    // Pages that the exact check reads one after another agree with one read of them all.
    expect(verifiedPages<Row>(conn, { ...built, params: [] }, 5, () => true).map((r) => r.id)).toEqual(
      verifiedPages<Row>(conn, { ...built, read: undefined, params: [] }, 5, () => true).map((r) => r.id),
    );
    return conn.close();
  });
});
