/**
 * Recall quality on the dev evaluation set, with the SQLite provider and the
 * offline default embedder: the figures of the README's table, held as
 * floors so that a ranking regression (such as bm25 losing term
 * frequencies) fails a test. Deterministic: no timing is asserted.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '@agentstate/sqlite';
import { CONFIGS, evaluate, hybridGains, loadEvalSet, loadItems } from '../../../bench/recall-eval.js';

const DATA = fileURLToPath(new URL('../../../../shared/eval/recall-dev.json', import.meta.url));

describe('recall quality on recall-dev', () => {
  it('meets the targets against SPEC lexical recall, and never trails BM25 on lexical queries', async () => {
    expect(existsSync(DATA), `${DATA} (the shared evaluation data) is missing`).toBe(true);
    const set = loadEvalSet(DATA);
    const state = openSqlite(':memory:');
    const ids = await loadItems(state.memory, set);
    const scores = [];
    for (const [, options] of CONFIGS) scores.push(await evaluate(state.memory, ids, set, options));
    await state.close();
    const [strict, any] = hybridGains(scores);
    expect(strict!.paraphraseAndSemantic).toBeGreaterThanOrEqual(0.15);
    expect(strict!.lexical).toBeGreaterThanOrEqual(-0.02);
    expect(any!.lexical).toBeGreaterThanOrEqual(-0.02);
    expect(any!.paraphraseAndSemantic).toBeGreaterThanOrEqual(0.1);
    expect(scores[1]!.byType.get('lexical')!.recallAtK).toBeGreaterThanOrEqual(0.95);
  });
});
