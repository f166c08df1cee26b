/**
 * Benchmark of the static embedder: table size on disk, cold load time and
 * memory (each in a fresh process, median of several), and sentences
 * embedded per second. Needs the built packages (`npm run build` at the root).
 *
 *   npm run bench            (in bench/)
 *   npx tsx embeddings.ts --runs 7 --sentences 50000
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';

const PACKAGE = new URL('../packages/embeddings/dist/index.js', import.meta.url);
const TABLE = new URL('../packages/embeddings/data/glove-100d-q4.bin', import.meta.url);

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    sentences: { type: 'string', default: '20000' },
  },
});

interface LoadSample {
  importMs: number;
  loadMs: number;
  rssMb: number;
  heapMb: number;
  externalMb: number;
}

/**
 * Run in a fresh plain-Node process: import the package, then load the table,
 * reporting the load's time and memory deltas (after a GC on both sides).
 */
const CHILD = `
const t0 = performance.now();
const { createStaticEmbedder } = await import(${JSON.stringify(PACKAGE.href)});
const t1 = performance.now();
globalThis.gc();
const before = process.memoryUsage();
const t2 = performance.now();
await createStaticEmbedder().load();
const t3 = performance.now();
globalThis.gc();
const after = process.memoryUsage();
const mb = (b) => b / 1024 / 1024;
process.stdout.write(JSON.stringify({
  importMs: t1 - t0,
  loadMs: t3 - t2,
  rssMb: mb(after.rss - before.rss),
  heapMb: mb(after.heapUsed - before.heapUsed),
  externalMb: mb(after.external - before.external),
}));
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Deterministic English-ish sentences of 4–20 words, with some words no table has. */
function corpus(count: number): string[] {
  const words = (
    'the user prefers dark mode and likes a theme deploy to production on friday database backup runs ' +
    'every night postgres replica reporting meeting moved tuesday morning project atlas beacon release ' +
    'notes team lead wants tests before merge coffee lisbon office travel budget invoice customer ' +
    'support ticket latency spike dashboard alert on call rotation kubernetes cluster upgrade'
  ).split(' ');
  const rare = ['larkspur', 'zorblax', 'catppuccin', 'pgbouncer', 'turborepo', '2024', 'v3', 'priya'];
  let state = 42;
  const next = (n: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
  return Array.from({ length: count }, () => {
    const length = 4 + next(17);
    return Array.from({ length }, () => (next(10) === 0 ? rare[next(rare.length)]! : words[next(words.length)]!)).join(' ');
  });
}

async function main(): Promise<void> {
  const runs = Number(values.runs);
  const samples: LoadSample[] = [];
  for (let i = 0; i < runs; i += 1) {
    const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], { encoding: 'utf8' });
    samples.push(JSON.parse(out) as LoadSample);
  }

  const { createStaticEmbedder } = (await import(PACKAGE.href)) as typeof import('../packages/embeddings/dist/index.js');
  const embedder = createStaticEmbedder();
  await embedder.load();
  const sentences = corpus(Number(values.sentences));
  const words = sentences.reduce((n, s) => n + s.split(' ').length, 0);
  embedder.embedSync(sentences.slice(0, 2000)); // warm up
  const rates: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const t0 = performance.now();
    embedder.embedSync(sentences);
    rates.push(sentences.length / ((performance.now() - t0) / 1000));
  }

  const rows: Array<[string, string]> = [
    ['embedder', embedder.id],
    ['table size on disk', `${(statSync(TABLE).size / 1e6).toFixed(2)} MB (${statSync(TABLE).size} bytes)`],
    [
      `load time, cold process (median of ${runs})`,
      `${median(samples.map((s) => s.loadMs)).toFixed(0)} ms (+ ${median(samples.map((s) => s.importMs)).toFixed(0)} ms to import the package)`,
    ],
    ['load memory: RSS delta', `${median(samples.map((s) => s.rssMb)).toFixed(1)} MB`],
    ['load memory: heap + external delta', `${median(samples.map((s) => s.heapMb + s.externalMb)).toFixed(1)} MB`],
    [
      `embedding (${sentences.length} sentences, ${(words / sentences.length).toFixed(1)} words avg)`,
      `${Math.round(median(rates)).toLocaleString('en-US')} sentences/s (median of 3)`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`| ${'measure'.padEnd(width)} | value |`);
  console.log(`| ${'-'.repeat(width)} | ----- |`);
  for (const [k, v] of rows) console.log(`| ${k.padEnd(width)} | ${v} |`);
}

await main();
