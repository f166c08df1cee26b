/**
 * Lexical matching on FTS5 (docs/contract.md §5). MATCH expressions are built only from
 * core's folded query tokens, each quoted as a prefix term, never from raw
 * user text. FTS5 narrows the candidates; every candidate is then checked
 * with core's own matcher, so results equal the reference backend's
 * even where FTS5's Unicode tables fold a character differently.
 */
import type { TokenMatch } from '@agentstate/core/backend';
import { foldForIndex, rowCodec, skillSearchText, squashScore } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { FTS_OPTIONS, TURN_FTS_OPTIONS } from './schema/derived.js';

/** A full-text index: its table, the options it was created with, and the text it holds for each live row, as the projection writes it. */
export interface FullTextIndex {
  table: 'memory_fts' | 'skills_fts' | 'turns_fts';
  /** The prefix indexes differ; the words indexed do not. */
  options: string;
  /** Row number and folded text of every live row of the record table, in row order. */
  liveTexts(conn: Connection): { n: number; text: string }[];
}

/** The live texts of a table whose searchable text is its `content`. */
const contentTexts =
  (table: 'memory' | 'turns') =>
  (conn: Connection): { n: number; text: string }[] =>
    (conn.prepare(`SELECT n, content FROM ${table} WHERE deleted = 0 ORDER BY n`).all() as { n: number; content: string }[]).map((r) => ({
      n: r.n,
      text: foldForIndex(r.content),
    }));

/** Every full-text index of the projection. */
export const FULL_TEXT_INDEXES: readonly FullTextIndex[] = [
  { table: 'memory_fts', options: FTS_OPTIONS, liveTexts: contentTexts('memory') },
  {
    table: 'skills_fts',
    options: FTS_OPTIONS,
    liveTexts: (conn) =>
      (conn.prepare('SELECT * FROM skills WHERE deleted = 0 ORDER BY n').all() as rowCodec.SkillRow[]).map((r) => ({
        n: r.n,
        text: foldForIndex(skillSearchText(rowCodec.skillFromRow(r))),
      })),
  },
  { table: 'turns_fts', options: TURN_FTS_OPTIONS, liveTexts: contentTexts('turns') },
];

/** The FTS5 query for folded `tokens`: `"tok"*` terms joined by AND (or OR). */
export function ftsQuery(tokens: readonly string[], match: TokenMatch = 'all'): string {
  return tokens.map((t) => `"${t.replaceAll('"', '""')}"*`).join(match === 'all' ? ' AND ' : ' OR ');
}

/** FTS5's bm25 (lower is better) squashed into [0, 1) as core's `rankByBm25` squashes its scores. */
export function relevanceScore(rank: number): number {
  return squashScore(-rank);
}
