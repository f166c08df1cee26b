/**
 * The pgvector path, on PGlite with its vector extension (the system server
 * has none): the provider picks HNSW at open time, creates one partial
 * index per target, embedder and dimension, and returns what the exact
 * fallback returns — through filters that reject most neighbours, for
 * hostile embedder ids, and in the recall checks of the conformance suite.
 * One PGlite for the whole file (creating one takes seconds).
 */
import type { PGlite } from '@electric-sql/pglite';
import type { Embedder, Provider } from '@agentstate/core';
import { runProviderConformance } from '@agentstate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../src/index.js';
import type { PostgresOptions, PostgresProvider } from '../src/index.js';
import { createPglite, pglitePool } from './pglite-pool.js';

let db: Promise<PGlite> | undefined;
const pglite = (): Promise<PGlite> => {
  db ??= createPglite();
  return db;
};
let schemas = 0;

afterAll(async () => {
  if (db !== undefined) await (await db).close();
});

async function open(schema: string, options: PostgresOptions = {}): Promise<PostgresProvider> {
  return openPostgres(pglitePool(await pglite()), { ...options, schema });
}

async function drop(schema: string): Promise<void> {
  await (await pglite()).exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** A deterministic embedder: a hashed bag of words, with a given id. */
function bagOfWords(id: string, dimensions = 24): Embedder {
  return {
    id,
    dimensions,
    similarityThreshold: 0.1,
    async embed(texts) {
      return texts.map((text) => {
        const v = new Float32Array(dimensions);
        for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
          let h = 7;
          for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) % 1_000_003;
          v[h % dimensions]! += 1;
        }
        return v;
      });
    },
  };
}

const WORDS = 'deploy staging rollback cache redis postgres dark mode lisbon office review tests latency alert pager incident cluster'.split(' ');

describe('pgvector on PGlite', () => {
  beforeAll(async () => {
    await pglite();
  });

  it('creates the extension, indexes each embedder and dimension with HNSW, and ranks as the exact fallback does', async () => {
    const schema = `pgv_${++schemas}`;
    const embedder = bagOfWords("it's a \\ hostile' id");
    const indexed = await open(schema, { embedder });
    try {
      let seed = 1;
      const word = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return WORDS[seed % WORDS.length]!;
      };
      // 300 items, only 6 of them in the scope asked for: the index's first neighbours are mostly filtered out.
      for (let i = 0; i < 300; i += 1) {
        await indexed.memory.write({ kind: 'fact', content: `${word()} ${word()} ${word()} ${word()}`, scope: [i % 50 === 0 ? 'rare' : 'common'] });
      }
      const exact = await open(schema, { embedder, vectorIndex: 'exact' });
      // PGlite has one session: with sequential scans discouraged, the indexed provider walks the HNSW graph.
      await (await pglite()).exec('SET enable_seqscan = off');
      try {
        for (const query of ['deploy rollback', 'dark office lisbon', 'pager incident alert']) {
          for (const scope of [undefined, ['rare']]) {
            for (const mode of ['semantic', 'hybrid'] as const) {
              const a = await indexed.memory.recall({ query, mode, limit: 10, ...(scope ? { scope } : {}) });
              const b = await exact.memory.recall({ query, mode, limit: 10, ...(scope ? { scope } : {}) });
              expect(a.map((h) => [h.id, h.score])).toEqual(b.map((h) => [h.id, h.score]));
              expect(a.length).toBeGreaterThan(0);
            }
          }
        }
      } finally {
        await (await pglite()).exec('RESET enable_seqscan');
        await exact.close();
      }
      const indexes = await (await pglite()).query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%hnsw%'`, [
        schema,
      ]);
      expect(indexes.rows).toHaveLength(1);
      expect(indexes.rows[0]!.indexdef).toContain('vector_cosine_ops');
      expect(indexes.rows[0]!.indexdef).toContain('vector(24)');
    } finally {
      await indexed.close();
      await drop(schema);
    }
  });

  it('walks the HNSW index for a filtered nearest-neighbour query when the planner would rather not scan', async () => {
    const schema = `pgv_${++schemas}`;
    const provider = await open(schema, { embedder: bagOfWords('plain') });
    try {
      for (let i = 0; i < 40; i += 1) await provider.memory.write({ kind: 'fact', content: `${WORDS[i % WORDS.length]} item ${i}` });
      expect((await provider.memory.recall({ query: 'deploy', mode: 'semantic', limit: 3 })).length).toBe(3);
      const lite = await pglite();
      await lite.exec('SET enable_seqscan = off');
      try {
        const vector = `[${Array.from({ length: 24 }, (_, i) => (i === 3 ? 1 : 0)).join(',')}]`;
        const plan = await lite.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT v.record_id FROM "${schema}".vectors v WHERE v.target = 'memory' AND v.embedder_id = 'plain' AND cardinality(v.vector) = 24
           ORDER BY (v.vector::public.vector(24)) OPERATOR(public.<=>) $1::public.vector(24) LIMIT 5`,
          [vector],
        );
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan using vectors_hnsw_/);
      } finally {
        await lite.exec('RESET enable_seqscan');
      }
    } finally {
      await provider.close();
      await drop(schema);
    }
  });
});

const owned = new WeakMap<Provider, { schema: string; owner: boolean }>();

// The recall checks of the conformance suite (S6 and S8 embed) on the pgvector path.
runProviderConformance(
  {
    name: 'postgres on PGlite with pgvector',
    create: async (options) => {
      const schema = `conf_${++schemas}`;
      const provider = await open(schema, options);
      owned.set(provider, { schema, owner: true });
      return provider;
    },
    reopen: async (provider, options) => {
      const place = owned.get(provider)!;
      await provider.close();
      const reopened = await open(place.schema, options);
      owned.set(reopened, place);
      return reopened;
    },
    openShared: async (provider, options) => {
      const place = owned.get(provider)!;
      const shared = await open(place.schema, options);
      owned.set(shared, { schema: place.schema, owner: false });
      return shared;
    },
    destroy: async (provider) => {
      await provider.close();
      const place = owned.get(provider);
      if (place?.owner) await drop(place.schema);
    },
  },
  { only: (name) => /^(S\d|A21|A22|M6|X7) /.test(name) },
);
