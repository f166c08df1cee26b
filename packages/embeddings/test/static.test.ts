import { cosineSimilarity } from '@agentstate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStaticEmbedder, STATIC_EMBEDDER_ID, STATIC_SIMILARITY_THRESHOLD } from '../src/index.js';
import { TABLE_INFO } from '../src/static/table-info.js';

const embedder = createStaticEmbedder();

function norm(v: Float32Array): number {
  return Math.hypot(...v);
}

const texts = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .array(fc.constantFrom('the', 'user', 'prefers', 'dark', 'mode', 'Kubernetes', 'café', '2024', 's', 'zxqv', '!!'), {
      maxLength: 30,
    })
    .map((words) => words.join(' ')),
);

describe('createStaticEmbedder', () => {
  it('declares its id, dimensions and threshold', () => {
    expect(embedder.id).toBe(STATIC_EMBEDDER_ID);
    expect(embedder.id).toContain(TABLE_INFO.sha256.slice(0, 12));
    expect(embedder.id).toMatch(/\+sif-v\d+$/);
    expect(embedder.dimensions).toBe(100);
    expect(embedder.similarityThreshold).toBe(STATIC_SIMILARITY_THRESHOLD);
  });

  it('gives every text a unit vector or the zero vector, never NaN', async () => {
    await embedder.load();
    fc.assert(
      fc.property(texts, (text) => {
        const [v] = embedder.embedSync([text]);
        expect(v).toHaveLength(100);
        expect(v!.every((x) => Number.isFinite(x))).toBe(true);
        const n = norm(v!);
        expect(n === 0 || Math.abs(n - 1) < 1e-5).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic and independent of batching and of other embedders', async () => {
    const other = createStaticEmbedder();
    await fc.assert(
      fc.asyncProperty(fc.array(texts, { maxLength: 6 }), async (batch) => {
        const together = await embedder.embed(batch);
        const alone = await Promise.all(batch.map(async (text) => (await other.embed([text]))[0]!));
        expect(together).toEqual(alone);
        expect(embedder.embedSync(batch)).toEqual(together);
      }),
      { numRuns: 50 },
    );
  });

  it('gives the zero vector to text without tokens', async () => {
    for (const v of await embedder.embed(['', '   ', '?!… —', '\u0000'])) {
      expect(norm(v)).toBe(0);
    }
  });

  it('gives a non-zero vector to any text with a token, known or not', async () => {
    for (const v of await embedder.embed(['the', 'zxqvbnm', '42', 's'])) {
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('folds case and diacritics like lexical matching does', async () => {
    const [a, b] = await embedder.embed(['Café au LAIT', 'cafe au lait']);
    expect(a).toEqual(b);
  });

  it('puts paraphrases closer than unrelated sentences', async () => {
    const [query, paraphrase, unrelated] = await embedder.embed(['the user prefers dark mode', 'user likes a dark theme', 'deploy to production on friday']);
    const close = cosineSimilarity(query!, paraphrase!);
    const far = cosineSimilarity(query!, unrelated!);
    expect(close).toBeGreaterThan(far);
    expect(close).toBeGreaterThan(STATIC_SIMILARITY_THRESHOLD);
    expect(far).toBeLessThan(STATIC_SIMILARITY_THRESHOLD);
  });

  it('relates words that are not in the table through shared trigrams', async () => {
    const [a, b, c] = await embedder.embed(['zorblaxian', 'zorblaxians', 'quintrequel']);
    expect(cosineSimilarity(a!, b!)).toBeGreaterThan(0.5);
    expect(Math.abs(cosineSimilarity(a!, c!))).toBeLessThan(0.4);
  });

  it('hands out related words for the lexical leg, never the tokens themselves', async () => {
    expect(await embedder.relatedTokens(['car'])).toEqual(expect.arrayContaining(['automobile', 'sedan']));
    expect(await embedder.relatedTokens(['car', 'automobile'])).not.toContain('automobile');
    expect(await embedder.relatedTokens(['the', 'zorblaxian', ''])).toEqual([]);
    expect(await embedder.relatedTokens([])).toEqual([]);
  });

  it('weighs frequent words little', async () => {
    const [topic, withFiller, other] = await embedder.embed([
      'postgres database backup',
      'the postgres database backup is of the and a',
      'birthday party cake',
    ]);
    expect(cosineSimilarity(topic!, withFiller!)).toBeGreaterThan(0.9);
    expect(cosineSimilarity(topic!, other!)).toBeLessThan(0.5);
  });
});
