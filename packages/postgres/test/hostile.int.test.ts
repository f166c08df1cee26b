/**
 * Inputs at the contract's limits that PostgreSQL's full-text types cannot
 * hold as they are: a token longer than a lexeme may be, and a record with
 * more distinct tokens than a `tsvector` holds. Both must be stored and
 * found exactly as the reference finds them.
 */
import { describe, expect, it } from 'vitest';
import { fresh } from './helpers.js';

describe('PostgreSQL lexical index at the limits', () => {
  it('finds a token longer than a lexeme by any prefix, and not by a wrong one', async () => {
    const { provider, close } = await fresh();
    const long = `${'é'.repeat(1_500)}tail`;
    await provider.memory.write({ content: `start ${long} end` });
    const hits = async (query: string) => (await provider.memory.recall({ query, limit: 10 })).length;
    expect(await hits('e'.repeat(1_200))).toBe(1);
    expect(await hits(`${'e'.repeat(1_500)}ta`)).toBe(1);
    expect(await hits(`${'e'.repeat(1_500)}x`)).toBe(0);
    await close();
  });

  it('stores and finds a record with more distinct tokens than a tsvector holds', async () => {
    const { provider, close } = await fresh();
    // 160,000 distinct tokens of 4 CJK ideographs (800,000 characters): 1.9 MB of lexemes, over the 1 MB a tsvector holds.
    const ideograph = (n: number) => String.fromCodePoint(0x4e00 + (n % 1_000));
    const words = Array.from({ length: 160_000 }, (_, i) => [3, 2, 1, 0].map((k) => ideograph(Math.floor(i / 1_000 ** k))).join(''));
    const item = await provider.memory.write({ content: words.join(' ') });
    await provider.memory.write({ content: 'a small neighbour' });
    expect((await provider.memory.recall({ query: words[123_456]!, limit: 10 })).map((m) => m.id)).toEqual([item.id]);
    expect((await provider.memory.recall({ query: 'neighbour', limit: 10 })).map((m) => m.content)).toEqual(['a small neighbour']);
    expect(await provider.memory.recall({ query: 'absent', limit: 10 })).toEqual([]);
    await close();
  });
});
