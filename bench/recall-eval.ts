/**
 * Recall-quality evaluation over a data set of memory items and queries with
 * graded relevance (`bench/data/recall-dev.json` by default): recall@k
 * and MRR by query type, for each recall configuration given.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MemoryStore, RecallOptions } from '@agentstate/core';

/** The recall development set kept in this repository: 402 memory items and 205 graded queries. */
export const RECALL_DEV_PATH = fileURLToPath(new URL('./data/recall-dev.json', import.meta.url));

/** The configurations compared, all ordered by relevance: two lexical baselines, semantic, hybrid. */
export const CONFIGS: [string, RecallOptions][] = [
  ['lexical (every token must match)', { mode: 'lexical', order: 'relevance' }],
  ['lexical (BM25, any token)', { mode: 'lexical', order: 'relevance', match: 'any' }],
  ['semantic (static GloVe)', { mode: 'semantic', order: 'relevance' }],
  ['hybrid (default)', { mode: 'hybrid', order: 'relevance' }],
];

/** The evaluation data set. */
export interface EvalSet {
  name: string;
  items: { id: string; kind: string; content: string; source: string }[];
  queries: { id: string; query: string; relevant: string[]; type: string }[];
}

/** Loads an evaluation data set from a JSON file. */
export function loadEvalSet(path: string): EvalSet {
  return JSON.parse(readFileSync(path, 'utf8')) as EvalSet;
}

/** Writes every item of the set into a memory store, returning store id → data set id. */
export async function loadItems(memory: MemoryStore, set: EvalSet): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const item of set.items) {
    const written = await memory.write({ kind: item.kind, content: item.content, source: item.source });
    ids.set(written.id, item.id);
  }
  return ids;
}

/** Recall@k and MRR of one configuration, per query type and over all. */
export interface EvalScores {
  byType: Map<string, { queries: number; recallAtK: number; mrr: number }>;
}

/**
 * Runs every query with `options` and scores it: recall@k is the share of
 * relevant items in the top k; MRR is 1 / rank of the first relevant hit.
 */
export async function evaluate(memory: MemoryStore, ids: Map<string, string>, set: EvalSet, options: RecallOptions, k = 5): Promise<EvalScores> {
  const sums = new Map<string, { queries: number; recallAtK: number; mrr: number }>();
  for (const q of set.queries) {
    const hits = await memory.recall({ ...options, query: q.query, limit: Math.max(k, 10) });
    const ranked = hits.map((h) => ids.get(h.id));
    const relevant = new Set(q.relevant);
    const found = ranked.slice(0, k).filter((id) => id !== undefined && relevant.has(id)).length;
    const first = ranked.findIndex((id) => id !== undefined && relevant.has(id));
    for (const type of [q.type, 'all']) {
      const s = sums.get(type) ?? { queries: 0, recallAtK: 0, mrr: 0 };
      s.queries += 1;
      s.recallAtK += found / relevant.size;
      s.mrr += first >= 0 ? 1 / (first + 1) : 0;
      sums.set(type, s);
    }
  }
  for (const s of sums.values()) {
    s.recallAtK /= s.queries;
    s.mrr /= s.queries;
  }
  return { byType: sums };
}

/** Mean recall@k over paraphrase and semantic queries together. */
export function paraphraseAndSemantic(s: EvalScores): number {
  const p = s.byType.get('paraphrase')!;
  const m = s.byType.get('semantic')!;
  return (p.recallAtK * p.queries + m.recallAtK * m.queries) / (p.queries + m.queries);
}

/**
 * Hybrid's gain over each lexical baseline of {@link CONFIGS} (scores in
 * that order): on paraphrase + semantic queries, and on lexical queries.
 */
export function hybridGains(scores: readonly EvalScores[]): { paraphraseAndSemantic: number; lexical: number }[] {
  const hybrid = scores[3]!;
  const lexical = (s: EvalScores) => s.byType.get('lexical')!.recallAtK;
  return scores.slice(0, 2).map((baseline) => ({
    paraphraseAndSemantic: paraphraseAndSemantic(hybrid) - paraphraseAndSemantic(baseline),
    lexical: lexical(hybrid) - lexical(baseline),
  }));
}
