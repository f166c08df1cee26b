/**
 * Recall quality (issue #4): recall@5 and MRR by query type for lexical,
 * semantic and hybrid recall over `bench/data/recall-dev.json`, on the
 * SQLite provider with no named embedder (so semantic recall uses the
 * offline static default). Run: `npm run recall-quality -w @agentstate/bench`
 * (`-- --data PATH` for another set, `-- --backend in-memory` for core's).
 */
import { parseArgs } from 'node:util';
import { createInMemoryProvider } from '@agentstate/core';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { openSqlite } from '@agentstate/sqlite';
import { CONFIGS, evaluate, hybridGains, loadEvalSet, loadItems, RECALL_DEV_PATH } from './recall-eval.js';
import type { EvalScores } from './recall-eval.js';
import { printTable } from './table.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: RECALL_DEV_PATH },
    backend: { type: 'string', default: 'sqlite' },
  },
});

const TYPES = ['lexical', 'paraphrase', 'semantic', 'multi', 'negative-distractor', 'all'];

const set = loadEvalSet(values.data!);
const provider = values.backend === 'in-memory' ? createInMemoryProvider({ defaultEmbedder: createStaticEmbedder }) : await openSqlite(':memory:');
const ids = await loadItems(provider.memory, set);
const results: [string, EvalScores][] = [];
for (const [name, options] of CONFIGS) results.push([name, await evaluate(provider.memory, ids, set, options)]);

const cell = (s: EvalScores, type: string) => {
  const v = s.byType.get(type);
  return v ? `${v.recallAtK.toFixed(2)} / ${v.mrr.toFixed(2)}` : '—';
};
const count = (type: string) => results[0]![1].byType.get(type)?.queries ?? 0;
printTable(
  `Recall quality on ${set.name}, ${provider.name} provider (${set.items.length} items, ${set.queries.length} queries): recall@5 / MRR`,
  ['configuration', ...TYPES.map((t) => `${t} (${count(t)})`)],
  results.map(([name, s]) => [name, ...TYPES.map((t) => cell(s, t))]),
);

const gains = hybridGains(results.map(([, s]) => s));
printTable(
  'Targets: hybrid ≥ lexical + 0.15 on paraphrase + semantic; never more than 0.02 below lexical on lexical queries',
  ['baseline', 'paraphrase+semantic: hybrid − lexical', 'lexical queries: hybrid − lexical'],
  gains.map((g, i) => [CONFIGS[i]![0], g.paraphraseAndSemantic.toFixed(3), g.lexical.toFixed(3)]),
);
await provider.close();
