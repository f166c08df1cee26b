/**
 * Recall quality (issue #4): recall@5 and MRR by query type for lexical,
 * semantic and hybrid recall over `../shared/eval/recall-dev.json`, with the
 * offline static embedder. Run: `npm run recall-quality -w @agentstate/bench`
 * (`-- --data PATH` for another set).
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createMemoryProvider } from '@agentstate/core';
import type { RecallOptions } from '@agentstate/core';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { evaluate, loadEvalSet, loadItems } from './recall-eval.js';
import type { EvalScores } from './recall-eval.js';
import { printTable } from './table.js';

const { values } = parseArgs({
  options: { data: { type: 'string', default: fileURLToPath(new URL('../../shared/eval/recall-dev.json', import.meta.url)) } },
});

/** The configurations compared, all ordered by relevance. */
export const CONFIGS: [string, RecallOptions][] = [
  ['lexical (SPEC §5: every token)', { mode: 'lexical', order: 'relevance' }],
  ['lexical (BM25, any token)', { mode: 'lexical', order: 'relevance', match: 'any' }],
  ['semantic (static GloVe)', { mode: 'semantic', order: 'relevance' }],
  ['hybrid (default)', { mode: 'hybrid', order: 'relevance' }],
];

const TYPES = ['lexical', 'paraphrase', 'semantic', 'multi', 'negative-distractor', 'all'];

const set = loadEvalSet(values.data!);
const provider = createMemoryProvider({ embedder: createStaticEmbedder() });
const ids = await loadItems(provider.memory, set);
const results: [string, EvalScores][] = [];
for (const [name, options] of CONFIGS) results.push([name, await evaluate(provider.memory, ids, set, options)]);

const cell = (s: EvalScores, type: string) => {
  const v = s.byType.get(type);
  return v ? `${v.recallAtK.toFixed(2)} / ${v.mrr.toFixed(2)}` : '—';
};
const count = (type: string) => results[0]![1].byType.get(type)?.queries ?? 0;
printTable(
  `Recall quality on ${set.name} (${set.items.length} items, ${set.queries.length} queries): recall@5 / MRR`,
  ['configuration', ...TYPES.map((t) => `${t} (${count(t)})`)],
  results.map(([name, s]) => [name, ...TYPES.map((t) => cell(s, t))]),
);

const paraSem = (s: EvalScores) => {
  const p = s.byType.get('paraphrase')!;
  const m = s.byType.get('semantic')!;
  return (p.recallAtK * p.queries + m.recallAtK * m.queries) / (p.queries + m.queries);
};
const [strict, any, , hybrid] = results.map(([, s]) => s);
const lexicalOf = (s: EvalScores) => s.byType.get('lexical')!.recallAtK;
printTable(
  'Targets: hybrid ≥ lexical + 0.15 on paraphrase + semantic; never more than 0.02 below lexical on lexical queries',
  ['baseline', 'paraphrase+semantic: hybrid − lexical', 'lexical queries: hybrid − lexical'],
  [
    ['lexical (SPEC §5: every token)', (paraSem(hybrid!) - paraSem(strict!)).toFixed(3), (lexicalOf(hybrid!) - lexicalOf(strict!)).toFixed(3)],
    ['lexical (BM25, any token)', (paraSem(hybrid!) - paraSem(any!)).toFixed(3), (lexicalOf(hybrid!) - lexicalOf(any!)).toFixed(3)],
  ],
);
