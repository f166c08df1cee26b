/**
 * Recall quality on the dev evaluation set, with the SQLite provider and the
 * offline default embedder: the figures of bench/README.md's recall-quality table, held as
 * floors so that a ranking regression (such as bm25 losing term
 * frequencies) fails a test. Deterministic: no timing is asserted.
 */
import { describe, expect, it } from 'vitest';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { openSqlite } from '@agentstate/sqlite';
import { CONFIGS, evaluate, hybridGains, loadEvalSet, loadItems, paraphraseAndSemantic, RECALL_DEV_PATH } from '../../../bench/recall-eval.js';

describe('recall quality on recall-dev', () => {
  it("meets the targets against the contract's lexical recall, and never trails BM25 on lexical queries", async () => {
    const set = loadEvalSet(RECALL_DEV_PATH);
    expect(set.items.length).toBe(402);
    expect(set.queries.length).toBe(205);
    const state = await openSqlite(':memory:', { embedder: createStaticEmbedder() });
    const ids = await loadItems(state.memory, set);
    const scores = [];
    for (const [, options] of CONFIGS) scores.push(await evaluate(state.memory, ids, set, options));
    await state.close();
    const [strict, any] = hybridGains(scores);
    expect(strict!.paraphraseAndSemantic).toBeGreaterThanOrEqual(0.15);
    expect(strict!.lexical).toBeGreaterThanOrEqual(-0.02);
    expect(any!.lexical).toBeGreaterThanOrEqual(-0.02);
    expect(any!.paraphraseAndSemantic).toBeGreaterThanOrEqual(0.19);
    expect(scores[1]!.byType.get('lexical')!.recallAtK).toBeGreaterThanOrEqual(0.95);
    // Hybrid with the static embedder's vectors and its WordNet related words in the lexical leg.
    expect(paraphraseAndSemantic(scores[3]!)).toBeGreaterThanOrEqual(0.39);
    expect(scores[3]!.byType.get('lexical')!.recallAtK).toBeGreaterThanOrEqual(0.98);
  });
});
