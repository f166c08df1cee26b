import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { cosineSimilarity } from '@agentstate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TableFormatError } from '../src/index.js';
import { decodeTable, dequantise, encodeTable } from '../src/static/format.js';
import { Lexicon } from '../src/static/lexicon.js';
import { SHIPPED_TABLE_URL } from '../src/static/table.js';
import { TABLE_INFO } from '../src/static/table-info.js';

describe('the shipped table', () => {
  const bytes = readFileSync(SHIPPED_TABLE_URL);

  it('is the one the embedder id names, and within the 16 MB package budget', () => {
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(TABLE_INFO.sha256);
    expect(statSync(SHIPPED_TABLE_URL).size).toBeLessThanOrEqual(16_000_000);
  });

  it('relates words through WordNet where the vectors agree, symmetrically', () => {
    const table = decodeTable(bytes);
    const related = (word: string) => {
      const row = table.lexicon.get(word)!;
      return Array.from(table.relatedRows.subarray(table.relatedStarts[row], table.relatedStarts[row + 1]), (r) => table.lexicon.word(r));
    };
    expect(related('car')).toContain('automobile');
    expect(related('automobile')).toContain('car');
    expect(related('reimbursement')).toContain('compensation');
    expect(related('the')).toEqual([]);
    expect(table.relatedRows.length).toBeGreaterThan(10_000);
  });

  it('decodes to the words and dimensions it claims', () => {
    const table = decodeTable(bytes);
    expect(table.header.count).toBe(TABLE_INFO.words);
    expect(table.header.dimensions).toBe(TABLE_INFO.dimensions);
    expect(table.lexicon.size).toBe(TABLE_INFO.words);
    expect(table.lexicon.word(0)).toBe('the');
    for (const word of ['user', 'prefers', 'dark', 'theme', 'deploy', 'database', 'docker', 'github']) {
      expect(table.lexicon.get(word)).toBeTypeOf('number');
    }
    expect(table.header.medianNorm).toBeGreaterThan(0);
  });
});

describe('table format', () => {
  const small = fc.uniqueArray(fc.stringMatching(/^[a-z]{1,12}$/), { minLength: 1, maxLength: 40 }).chain((words) =>
    fc.record({
      words: fc.constant(words),
      vectors: fc.array(fc.float({ min: -5, max: 5, noNaN: true, noDefaultInfinity: true }), {
        minLength: words.length * 6,
        maxLength: words.length * 6,
      }),
    }),
  );

  it('round-trips words, ranks and close vectors', () => {
    fc.assert(
      fc.property(small, ({ words, vectors }) => {
        const source = {
          dimensions: 6,
          source: 'test',
          sourceWords: 1000,
          postprocess: 'none',
          words,
          ranks: words.map((_, i) => i * 3),
          vectors: Float32Array.from(vectors),
        };
        const table = decodeTable(encodeTable(source));
        expect(table.header.count).toBe(words.length);
        const out = new Float32Array(6);
        words.forEach((word, row) => {
          expect(table.lexicon.get(word)).toBe(row);
          expect(table.lexicon.word(row)).toBe(word);
          expect(table.ranks[row]).toBe(row * 3);
          const original = source.vectors.subarray(row * 6, row * 6 + 6);
          const back = dequantise(table, row, out);
          const maxAbs = Math.max(...original.map(Math.abs));
          for (let d = 0; d < 6; d += 1) expect(Math.abs(back[d]! - original[d]!)).toBeLessThanOrEqual(maxAbs * 0.2 + 1e-6);
        });
        expect(table.lexicon.get('NOT-A-WORD')).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it('keeps 100-d Gaussian vectors at cosine ≥ 0.98 after 4-bit quantisation', () => {
    let seed = 1;
    const gaussian = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const u = (seed + 1) / 2 ** 31;
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const v = (seed + 1) / 2 ** 31;
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    };
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
    const vectors = Float32Array.from({ length: 200 * 100 }, gaussian);
    const table = decodeTable(encodeTable({ dimensions: 100, source: 't', sourceWords: 200, postprocess: '', words, ranks: words.map((_, i) => i), vectors }));
    const out = new Float32Array(100);
    for (let row = 0; row < 200; row += 1) {
      const cos = cosineSimilarity(vectors.subarray(row * 100, row * 100 + 100), dequantise(table, row, out));
      expect(cos).toBeGreaterThan(0.98);
    }
  });

  it('round-trips related rows, sorted and deduplicated per word', () => {
    const table = decodeTable(
      encodeTable({
        dimensions: 2,
        source: 't',
        sourceWords: 3,
        postprocess: '',
        words: ['ab', 'cd', 'ef'],
        ranks: [0, 1, 2],
        vectors: Float32Array.from([1, 2, 3, 4, 5, 6]),
        related: [[2, 1, 2], [], [0]],
        relatedSource: 'test',
      }),
    );
    expect([...table.relatedStarts]).toEqual([0, 2, 2, 3]);
    expect([...table.relatedRows]).toEqual([1, 2, 0]);
    expect(table.header.relatedSource).toBe('test');
  });

  it('refuses related rows outside the table or pointing at the word itself', () => {
    const base = { dimensions: 2, source: '', sourceWords: 2, postprocess: '', words: ['ab', 'cd'], ranks: [0, 1], vectors: new Float32Array(4) };
    expect(() => encodeTable({ ...base, related: [[2], []] })).toThrow(TableFormatError);
    expect(() => encodeTable({ ...base, related: [[0], []] })).toThrow(TableFormatError);
    expect(() => encodeTable({ ...base, related: [[1], [0], [0]] })).toThrow(TableFormatError);
  });

  it('rejects damaged bytes with a TableFormatError', () => {
    const good = encodeTable({
      dimensions: 2,
      source: 't',
      sourceWords: 2,
      postprocess: '',
      words: ['ab', 'cd'],
      ranks: [0, 1],
      vectors: Float32Array.from([1, 2, 3, 4]),
    });
    const damaged = [
      Buffer.from('nope'),
      Buffer.concat([Buffer.from('XXXX'), good.subarray(4)]),
      good.subarray(0, good.length - 1),
      Buffer.concat([good, Buffer.from([0])]),
    ];
    const versioned = Buffer.from(good);
    versioned.writeUInt32LE(99, 4);
    damaged.push(versioned);
    for (const bytes of damaged) expect(() => decodeTable(bytes)).toThrow(TableFormatError);
  });

  it('rejects a word list that disagrees with the count', () => {
    expect(() => new Lexicon('a\nb\nc', 2)).toThrow(TableFormatError);
    expect(() => new Lexicon('a\nb', 3)).toThrow(TableFormatError);
    expect(() => new Lexicon('a', 0)).toThrow(TableFormatError);
    expect(new Lexicon('', 0).size).toBe(0);
  });

  it('refuses duplicate or unstorable words', () => {
    const base = { dimensions: 2, source: '', sourceWords: 2, postprocess: '', ranks: [0, 1], vectors: new Float32Array(4) };
    expect(() => encodeTable({ ...base, words: ['ab', 'ab'] })).toThrow(TableFormatError);
    expect(() => encodeTable({ ...base, words: ['a\nb', 'c'] })).toThrow(TableFormatError);
  });
});

describe('Lexicon', () => {
  it('finds every word at its row and nothing else', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).filter((w) => !w.includes('\n')),
          { maxLength: 60 },
        ),
        fc.string(),
        (words, probe) => {
          const lexicon = new Lexicon(words.join('\n'), words.length);
          for (const [row, word] of words.entries()) expect(lexicon.get(word)).toBe(row);
          expect(lexicon.get(probe)).toBe(words.includes(probe) ? words.indexOf(probe) : undefined);
        },
      ),
    );
  });
});
