/**
 * PostgreSQL benchmark (issues #14 and #29). Prints these tables:
 *  1. writers (bench/pg-writers.ts): durable appends by 1, 4 and 16 writers,
 *     each a separate process on its own connection: agentstate's
 *     `appendTurn` (each writer its own session, then 16 on one session),
 *     `@mastra/pg` `saveMessages` (one per turn), raw `pg` sending the
 *     store's statements, and `pgbench`'s own write transaction with as many
 *     clients (bench/pg-ceiling.ts); per row the rate, client and server CPU
 *     per append, the load average at the start and whether every turn was
 *     stored with dense turn numbers, each the median of BENCH_PG_RUNS rounds;
 *     then the ratios issue 29 targets (16 writers / 1 ≥ 1×, ≥ 2× on 2 cores;
 *     agentstate / Mastra at 16 writers ≥ 1.5×; agentstate / raw at 1 writer
 *     ≥ 0.7×) and their ceilings;
 *  2. reading a 5,000-turn transcript;
 *  3. recall at 100,000 memory items on that server (targets: lexical p50
 *     ≤ 10 ms; hybrid ≤ 60 ms with pgvector — the server has no pgvector,
 *     so its hybrid figure is the exact fallback);
 *  4. hybrid recall with pgvector (HNSW) on PGlite, the first 25,000 of those
 *     items copied in (PGlite is WebAssembly on one connection: building the
 *     index over more takes minutes).
 * The server (bench/pg-server.ts): AGENTSTATE_BENCH_POSTGRES_URL, or a
 * throwaway cluster started from the machine's binaries (default settings:
 * fsync and synchronous commit on), stopped and removed at the end.
 * Run: `npm run build` at the root, then `npm run postgres -w @agentstate/bench`.
 * BENCH_PG_ONLY=writers,transcript,recall (any of them, comma-separated; default all)
 * picks the tables. Sizes: BENCH_PG_TURNS (appends per writers row, shared among its
 * writers; default 2,000), BENCH_PG_WARM_UP (appends each writer makes before the
 * timed ones; default 6,000), BENCH_PG_RUNS (rounds of the writers table; default 3),
 * BENCH_PG_PGBENCH_SECONDS (each pgbench row; default 5, 0 leaves them out),
 * BENCH_PG_SHARED (0 leaves out sixteen writers on one session),
 * BENCH_PG_ITEMS, BENCH_PG_VECTOR_ITEMS.
 * BENCH_PG_CORPUS=small|zipf runs recall on one corpus; BENCH_PG_EXACT=0 skips the
 * exact-fallback rows (each query ranks every vector); BENCH_PG_PGVECTOR=0 skips PGlite;
 * BENCH_PG_KEEP=1 leaves the recall schema and the server up, for EXPLAIN.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { ManualClock, seededEntropy } from '@agentstate/core';
import type { Embedder } from '@agentstate/core';
import { openPostgres } from '@agentstate/postgres';
import { createPglite, pglitePool } from '../packages/postgres/test/pglite-pool.js';
import { dropSchema, fastUrl, startServer } from './pg-server.js';
import { benchWriters } from './pg-writers.js';
import { fmt, percentile, printTable, timeMs } from './table.js';
import { seededRandom } from './turn-text.js';

const TURNS = Number(process.env.BENCH_PG_TURNS ?? 2_000);
/** Rounds of the writers table (`BENCH_PG_RUNS`): each runs all its rows once; the table gives medians. */
const ROUNDS = Number(process.env.BENCH_PG_RUNS ?? 3);
const ITEMS = Number(process.env.BENCH_PG_ITEMS ?? 100_000);
const VECTOR_ITEMS = Math.min(ITEMS, Number(process.env.BENCH_PG_VECTOR_ITEMS ?? 25_000));
const QUERIES = 100;
const KEEP = process.env.BENCH_PG_KEEP === '1';
/** Items per `memory.writeMany` call when the recall corpora are loaded. */
const LOAD_BATCH = 1_000;

const WORDS = (
  'deploy staging production rollback database migration cache redis postgres user prefers dark mode lisbon office friday ' +
  'review tests coverage latency budget alert pager incident kubernetes cluster node memory leak profile flame graph ' +
  'invoice customer billing refund quota limit token model prompt context window agent tool call retry backoff timeout ' +
  'schema index query plan vacuum checkpoint wal fsync durable replica failover region zone backup restore snapshot'
).split(' ');
const random = seededRandom(42);
const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
const sentence = (n = 12) => Array.from({ length: n }, pick).join(' ');

/**
 * A corpus for recall: how its items and queries are made. `small` is the
 * SQLite benchmark's generator (72 words drawn uniformly, so each query
 * token matches a large share of the items, as no real corpus does);
 * `zipf` draws from 30,000 made-up words with Zipf's law (the i-th most
 * common word has frequency ∝ 1/i), as words in real text are distributed.
 */
interface Corpus {
  name: string;
  sentence: (n: number) => string;
  queries: string[];
}

const SYLLABLES = 'ka lo mi ne ru sa te vi do fu ga hi jo ku le ma no pe qui ro si tu va we xo yu za bre cla dri'.split(' ');
/** The i-th made-up word: its syllables are the digits of i + 1 in base 31, so every word differs. */
const madeUpWord = (i: number): string => {
  let n = i + 1;
  let word = '';
  while (n > 0) {
    word += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return word;
};
const ZIPF_WORDS = Array.from({ length: 30_000 }, (_, i) => madeUpWord(i));
const ZIPF_CUMULATIVE = (() => {
  const out = new Float64Array(ZIPF_WORDS.length);
  let sum = 0;
  for (let i = 0; i < out.length; i += 1) out[i] = sum += 1 / (i + 1);
  return out.map((c) => c / sum);
})();
/** A word drawn with Zipf's law: binary search of the cumulative frequencies. */
const pickZipf = (): string => {
  const r = random();
  let lo = 0;
  let hi = ZIPF_CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF_CUMULATIVE[mid]! < r) lo = mid + 1;
    else hi = mid;
  }
  return ZIPF_WORDS[lo]!;
};

/** Queries as the SQLite benchmark makes them: two words (the second a 4-letter prefix) or three words. */
const queriesOf = (word: () => string): string[] =>
  Array.from({ length: QUERIES }, () => (random() < 0.5 ? `${word()} ${word().slice(0, 4)}` : `${word()} ${word()} ${word()}`));

const CORPORA: Corpus[] = [
  { name: 'small', sentence, queries: queriesOf(pick) },
  { name: 'zipf', sentence: (n) => Array.from({ length: n }, pickZipf).join(' '), queries: queriesOf(pickZipf) },
];

/** A deterministic 100-dimension embedder: a hashed bag of words (a stand-in for a real model). */
function hashedEmbedder(dimensions = 100): Embedder {
  return {
    id: `hashed-bow-${dimensions}`,
    dimensions,
    similarityThreshold: 0.2,
    async embed(texts) {
      return texts.map((text) => {
        const v = new Float32Array(dimensions);
        for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          let h = 2166136261;
          for (let i = 0; i < w.length; i += 1) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
          v[(h >>> 0) % dimensions]! += 1;
          v[((h >>> 8) >>> 0) % dimensions]! += 0.5;
        }
        return v;
      });
    },
  };
}

// ---------------------------------------------------------------- 2. transcript read

async function benchTranscript(url: string): Promise<void> {
  const schema = 'bench_transcript';
  const writer = await openPostgres(fastUrl(url), { schema });
  const session = await writer.sessions.create({ title: 'long' });
  for (let i = 0; i < 5_000; i += 1) await writer.sessions.appendTurn({ sessionId: session.id, role: i % 2 ? 'assistant' : 'user', content: sentence(20) });
  await writer.close();
  const p = await openPostgres(url, { schema });
  const samples: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    const start = performance.now();
    const turns = await p.sessions.turns(session.id, { limit: 10_000 });
    samples.push(performance.now() - start);
    if (turns.length !== 5_000) throw new Error(`read ${turns.length} turns`);
  }
  await p.close();
  await dropSchema(url, schema);
  printTable(
    'Reading a 5,000-turn transcript (one call, 20 runs)',
    ['measure', 'p50', 'p95'],
    [['sessions.turns(id, { limit: 10000 })', `${fmt(percentile(samples, 50), 1)} ms`, `${fmt(percentile(samples, 95), 1)} ms`]],
  );
}

// ---------------------------------------------------------------- 3. and 4. recall

/** Times `fn` over the corpus's queries (the first `count`, after two warm-ups); adds a row. */
async function measureQueries(
  rows: string[][],
  corpus: Corpus,
  label: string,
  fn: (q: string) => Promise<unknown[]>,
  target: string,
  count = QUERIES,
): Promise<void> {
  for (const q of corpus.queries.slice(0, 2)) await fn(q);
  const samples: number[] = [];
  let hits = 0;
  const used = corpus.queries.slice(0, count);
  for (const q of used) {
    const start = performance.now();
    hits += (await fn(q)).length;
    samples.push(performance.now() - start);
  }
  rows.push([corpus.name, label, `${fmt(percentile(samples, 50), 2)} ms`, `${fmt(percentile(samples, 95), 2)} ms`, fmt(hits / used.length, 1), target]);
}

/** How many items of the corpus one query token matches on average (from the GIN index's statistics): what makes lexical recall broad. */
async function tokenShare(client: pg.Client, schema: string, corpus: Corpus): Promise<string> {
  const tokens = corpus.queries.flatMap((q) => q.split(' ')).slice(0, 200);
  let share = 0;
  for (const t of tokens) {
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}".memory WHERE search @@ to_tsquery('simple', $1)`, [`${t}:*`]);
    share += rows[0].n / ITEMS;
  }
  return `${fmt((share / tokens.length) * 100, 2)} %`;
}

async function benchRecall(url: string, corpus: Corpus, rows: string[][], notes: string[]): Promise<void> {
  const schema = `bench_recall_${corpus.name}`;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const writer = await openPostgres(fastUrl(url), { schema, clock, entropy: seededEntropy(3) });
  const loadMs = await timeMs(async () => {
    // One transaction per batch: one awaited write per item took about an hour for 100,000 on the loaded machine.
    for (let start = 0; start < ITEMS; start += LOAD_BATCH) {
      clock.advance(1);
      const batch = Array.from({ length: Math.min(LOAD_BATCH, ITEMS - start) }, (_, j) => {
        const i = start + j;
        return { content: corpus.sentence(10 + (i % 10)), kind: i % 3 === 0 ? 'preference' : 'fact', scope: [`project:p${i % 20}`] } as const;
      });
      await writer.memory.writeMany(batch);
    }
  });
  await writer.close();
  const hybrid = corpus.name === 'small' && process.env.BENCH_PG_EXACT !== '0';
  const p = await openPostgres(fastUrl(url), { schema, embedder: hybrid ? hashedEmbedder(100) : undefined });
  const embedMs = hybrid ? await timeMs(() => p.memory.recall({ query: 'warm up the vectors', mode: 'semantic' })) : 0;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`VACUUM ANALYZE "${schema}".memory`);
  await client.query(`VACUUM ANALYZE "${schema}".vectors`);
  notes.push(
    `${corpus.name}: load ${fmt(loadMs / 1000, 1)} s${hybrid ? `, embedding every item once ${fmt(embedMs / 1000, 1)} s` : ''}; a query token matches ${await tokenShare(client, schema, corpus)} of the items on average`,
  );
  await client.end();
  await measureQueries(rows, corpus, 'recall lexical, recent (limit 20)', (q) => p.memory.recall({ query: q, mode: 'lexical' }), 'p50 ≤ 10 ms');
  await measureQueries(
    rows,
    corpus,
    'recall lexical, relevance (bm25, limit 20)',
    (q) => p.memory.recall({ query: q, mode: 'lexical', order: 'relevance' }),
    'p50 ≤ 10 ms',
  );
  await measureQueries(
    rows,
    corpus,
    'recall lexical, one project scope',
    (q) => p.memory.recall({ query: q, mode: 'lexical', scope: ['project:p7'] }),
    'p50 ≤ 10 ms',
  );
  if (hybrid) {
    // The exact fallback ranks every live vector: a few queries say enough.
    await measureQueries(
      rows,
      corpus,
      'recall hybrid, exact fallback (100-d, limit 20)',
      (q) => p.memory.recall({ query: q, order: 'relevance' }),
      'p50 ≤ 60 ms (pgvector)',
      20,
    );
    await measureQueries(
      rows,
      corpus,
      'recall hybrid, exact fallback, one project scope',
      (q) => p.memory.recall({ query: q, order: 'relevance', scope: ['project:p7'] }),
      'p50 ≤ 60 ms (pgvector)',
      20,
    );
  }
  await p.close();
  if (hybrid && process.env.BENCH_PG_PGVECTOR !== '0') await benchPgvector(url, schema, corpus);
  if (!KEEP) await dropSchema(url, schema);
}

/** Recall on both corpora, in one table. */
async function benchRecalls(url: string): Promise<void> {
  const rows: string[][] = [];
  const notes: string[] = [];
  const chosen = process.env.BENCH_PG_CORPUS;
  for (const corpus of CORPORA.filter((c) => chosen === undefined || c.name === chosen)) await benchRecall(url, corpus, rows, notes);
  printTable(
    `Recall at ${fmt(ITEMS)} memory items on the server, no pgvector (${notes.join('; ')})`,
    ['corpus', 'query', 'p50', 'p95', 'hits/query', 'target'],
    rows,
  );
}

/** Copies the server's memory items and their vectors into PGlite (pgvector), then times hybrid recall there. */
async function benchPgvector(url: string, source: string, corpus: Corpus): Promise<void> {
  const createMs = performance.now();
  const lite = await createPglite();
  const embedder = hashedEmbedder(100);
  const schema = 'bench';
  // Opening creates the tables and the extension; the copied rows need no folding (the log stays empty).
  await (await openPostgres(pglitePool(lite), { schema, embedder })).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const copyStart = performance.now();
  for (const [table, order] of [
    ['memory', 'n'],
    ['vectors', 'record_id'],
  ] as const) {
    for (let offset = 0; offset < VECTOR_ITEMS; offset += 5_000) {
      const take = Math.min(5_000, VECTOR_ITEMS - offset);
      const src =
        table === 'vectors'
          ? `(SELECT v.* FROM "${source}".vectors v JOIN (SELECT id FROM "${source}".memory ORDER BY n LIMIT ${VECTOR_ITEMS}) m ON m.id = v.record_id)`
          : `"${source}".memory`;
      const { rows } = await client.query(`SELECT * FROM ${src} x ORDER BY ${order} LIMIT ${take} OFFSET ${offset}`);
      if (rows.length === 0) break;
      await lite.query(`INSERT INTO ${schema}.${table} SELECT * FROM json_populate_recordset(null::${schema}.${table}, $1::json)`, [JSON.stringify(rows)]);
    }
  }
  await client.end();
  await lite.exec(
    `SELECT setval(pg_get_serial_sequence('${schema}.memory', 'n'), (SELECT max(n) FROM ${schema}.memory)); ANALYZE ${schema}.memory; ANALYZE ${schema}.vectors`,
  );
  const copyMs = performance.now() - copyStart;
  const p = await openPostgres(pglitePool(lite), { schema, embedder });
  // One new item makes the provider embed and store it, which builds the HNSW index over every copied vector.
  const indexMs = await timeMs(async () => {
    await p.memory.write({ content: 'index the copied vectors', kind: 'fact' });
    await p.memory.recall({ query: 'index', mode: 'semantic' });
  });
  const rows: string[][] = [];
  await measureQueries(rows, corpus, 'recall semantic, pgvector HNSW (100-d, limit 20)', (q) => p.memory.recall({ query: q, mode: 'semantic' }), '—');
  await measureQueries(rows, corpus, 'recall hybrid, pgvector HNSW (100-d, limit 20)', (q) => p.memory.recall({ query: q, order: 'relevance' }), 'p50 ≤ 60 ms');
  await measureQueries(
    rows,
    corpus,
    'recall hybrid, pgvector HNSW, one project scope',
    (q) => p.memory.recall({ query: q, order: 'relevance', scope: ['project:p7'] }),
    'p50 ≤ 60 ms',
  );
  await measureQueries(rows, corpus, 'recall lexical, recent (limit 20), for scale', (q) => p.memory.recall({ query: q, mode: 'lexical' }), '—');
  await p.close();
  const exact = await openPostgres(pglitePool(lite), { schema, embedder, vectorIndex: 'exact' });
  await measureQueries(
    rows,
    corpus,
    'recall hybrid, exact fallback on PGlite, for scale',
    (q) => exact.memory.recall({ query: q, order: 'relevance' }),
    '—',
    20,
  );
  await exact.close();
  await lite.close();
  printTable(
    `Hybrid recall with pgvector ${'(HNSW, cosine)'} on PGlite (WebAssembly, one connection) at ${fmt(VECTOR_ITEMS)} items copied from the server (copy: ${fmt(copyMs / 1000, 1)} s; HNSW build: ${fmt(indexMs / 1000, 1)} s; total ${fmt((performance.now() - createMs) / 1000, 1)} s)`,
    ['corpus', 'query', 'p50', 'p95', 'hits/query', 'target'],
    rows,
  );
}

const only = new Set((process.env.BENCH_PG_ONLY ?? 'writers,transcript,recall').split(','));
const server = await startServer();
try {
  console.log(`PostgreSQL ${server.version}, node ${process.version}`);
  if (only.has('writers')) await benchWriters(server.url, TURNS, ROUNDS);
  if (only.has('transcript')) await benchTranscript(server.url);
  if (only.has('recall')) await benchRecalls(server.url);
} finally {
  if (KEEP) console.log(`kept: ${server.url}`);
  else await server.stop();
}
