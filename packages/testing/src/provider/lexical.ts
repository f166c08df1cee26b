/** B34: lexical matching (docs/contract.md §5), identical for skills.search and memory.recall in every backend. */
import { expect } from 'vitest';
import { ids } from '../suite/fixtures.js';
import { checks, fresh, type ProviderCheck } from '../suite/harness.js';

/** The searchable texts, numbered 1…6. */
const TEXTS = [
  'the user prefers Go',
  'Café au lait at noon',
  'Jürgen runs the deploys',
  'Notes on the NEAR OR AND NOT operators',
  'Ελληνικά κείμενο',
  "GO-LIVE checklist: don't panic!",
] as const;

const ALL = [1, 2, 3, 4, 5, 6];
const GO = [1, 6];

/** Each of `queries` with the numbers of the texts it must match. */
const match = (numbers: readonly number[], ...queries: string[]) => queries.map((q) => [q, numbers] as const);

/** Query → the numbers of the texts it must match. */
const EXPECTED: ReadonlyArray<readonly [string, readonly number[]]> = [
  ['', ALL],
  // Prefix tokens, not substrings.
  ...match([1], 'pref', 'prefers'),
  ...match([], 'refers', 'efers'),
  ['p*', [1, 6]],
  // Case folding.
  ...match(GO, 'GO', 'go', 'gO'),
  // Diacritic folding, both ways, composed or not.
  ...match([2], 'cafe', 'CAFÉ', 'cafe\u0301'),
  ...match([3], 'Jurgen', 'jürg', 'JURGEN DEPLOY'),
  ...match([5], 'ελληνικα', 'ΚΕΙΜ'),
  // Every token is required.
  ...match([1], 'user go', 'us pre', 'the go'),
  ...match([], 'user rust'),
  ['the', [1, 3, 4]],
  ['noon cafe', [2]],
  // Tokens are runs of letters and digits.
  ["don't", [6]],
  ['dont', []],
  // Operator words are plain tokens, never syntax.
  ...match([4], 'NOT', 'not', 'NEAR OR AND NOT'),
  ...match([], 'go OR rust', 'go NOT prefers', 'go AND user', 'user NEAR go', 'NEAR(go)', 'title:go', "'; DROP TABLE skills; --", "' OR '1'='1"),
  ...match([1], 'go -user', '"the user"', 'prefers*'),
  ...match(GO, 'g_', 'go%'),
  // Syntax characters around a word are plain text (the queries, separated by single spaces).
  ...match(GO, ...`"go" go* *go* (go) (go go) go: ^go go^ -go 'go' go' \\go %go% _go_ go;-- {go} [go] go" "go`.split(' ')),
  // Punctuation only: matches nothing, never errors.
  ...match([], '"', '*', '(', ')', ':', '^', '-', "'", '\\', '%', '_', ';--', '{}', '[]', '!!!', '...', '""', '()', '  -  ', '"*"', '-- ;'),
];

export const lexicalChecks: ProviderCheck[] = checks([], {
  'B34 lexical matching: prefix tokens, case and diacritic folding, every token required, syntax is plain text': fresh(async (p) => {
    const skillIds: string[] = [];
    const memoryIds: string[] = [];
    for (const [i, text] of TEXTS.entries()) {
      skillIds.push((await p.skills.upsert({ slug: `k${i + 1}`, body: text })).id);
      memoryIds.push((await p.memory.write({ content: text })).id);
    }
    for (const [query, numbers] of EXPECTED) {
      const label = `query ${JSON.stringify(query)}`;
      expect(ids(await p.skills.search(query, 0)), `skills.search ${label}`).toEqual(numbers.map((n) => skillIds[n - 1]));
      const hits = await p.memory.recall({ query, limit: 100 });
      // Newest first: the reverse of writing order.
      expect(ids(hits), `memory.recall ${label}`).toEqual([...numbers].reverse().map((n) => memoryIds[n - 1]));
      for (const h of hits) expect(h.score, label).toBe(1);
    }
  }),
});
