/**
 * docs/contract.md §5 on FTS5: for random Unicode text and queries, what SQLite returns
 * equals core's `matchesText`, for memory recall and skill search alike, and
 * MATCH expressions are built from folded tokens only.
 */
import { tokenize } from '@agentstate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesText } from '@agentstate/core/backend';
import { ftsQuery } from '../src/fts.js';
import { openSqlite } from '../src/index.js';

const scripts = fc.constantFrom(
  'Straße İstanbul ǅemal ﬁle déjà-vu Ωμέγα ΣΊΣΥΦΟΣ',
  '日本語のテキスト 中文 한국어',
  'עברית العربية ١٢٣ ۴۵۶',
  'Ⅻ ² ½ ① ǲ ǈ ȸ ß ẞ ŉ',
  '😀 👩‍💻 🇵🇹 x*y "q" (p) a:b ^c -d NEAR OR AND NOT',
  'øresund Łódź ıi İI ĳ œ æ đ ħ ŧ',
);
const word = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  scripts.chain((s) => fc.constantFrom(...s.split(' '))),
  fc.constantFrom('alpha', 'ALPHABET', 'beta', 'eclair', 'Éclair'),
);
const textArb = fc.array(word, { minLength: 0, maxLength: 6 }).map((w) => w.join(' '));

/** A query built from pieces of the texts (so that many match) or from scratch. */
function queriesFor(texts: string[]): fc.Arbitrary<string[]> {
  const fromTexts = texts.flatMap(tokenize);
  const piece =
    fromTexts.length === 0
      ? textArb
      : fc.oneof(
          fc.constantFrom(...fromTexts).chain((t) => fc.nat(Math.max(0, [...t].length - 1)).map((n) => [...t].slice(0, n + 1).join(''))),
          fc.constantFrom(...texts).map((t) => t.toUpperCase()),
          textArb,
        );
  return fc.array(
    fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join(' ')),
    { minLength: 1, maxLength: 8 },
  );
}

describe('lexical matching on FTS5', () => {
  it('builds MATCH expressions from folded tokens only', () => {
    expect(ftsQuery(['deploy', 'stag'])).toBe('"deploy"* AND "stag"*');
    expect(ftsQuery(['a', 'b'], 'any')).toBe('"a"* OR "b"*');
    expect(ftsQuery(['say"hi'])).toBe('"say""hi"*');
  });

  it('equals matchesText for random Unicode memory and skills', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(
            textArb.filter((t) => t.trim() !== '' && !t.includes('\u0000')),
            { minLength: 1, maxLength: 8 },
          )
          .chain((texts) => queriesFor(texts).map((queries) => ({ texts, queries: queries.filter((q) => !q.includes('\u0000')) }))),
        async ({ texts, queries }) => {
          const p = await openSqlite(':memory:');
          try {
            const items = [];
            for (const [i, content] of texts.entries()) {
              items.push(await p.memory.write({ content }));
              await p.skills.upsert({ slug: `s${i}`, body: content });
            }
            for (const query of queries) {
              const expected = items
                .filter((m) => matchesText(query, m.content))
                .map((m) => m.id)
                .sort();
              const got = (await p.memory.recall({ query, limit: 1000 })).map((h) => h.id).sort();
              expect(got, `recall ${JSON.stringify(query)}`).toEqual(expected);
              const skills = (await p.skills.search(query)).map((s) => s.slug).sort();
              const expectedSkills = texts.flatMap((t, i) => (matchesText(query, `s${i} ${t}`) ? [`s${i}`] : [])).sort();
              expect(skills, `search ${JSON.stringify(query)}`).toEqual(expectedSkills);
            }
          } finally {
            await p.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
