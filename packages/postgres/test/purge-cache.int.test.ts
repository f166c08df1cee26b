/**
 * A purge drops the erased text's cached embeddings under every embedder
 * that cached it, and no other entry: the cache is keyed by embedder first,
 * so the delete finds the embedders before the texts (on PGlite).
 */
import type { PGlite } from '@electric-sql/pglite';
import type { Embedder } from '@agentstate/core';
import { contentHash } from '@agentstate/core/backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../src/index.js';
import { createPglite, pglitePool } from './pglite-pool.js';

let db: PGlite;

beforeAll(async () => {
  db = await createPglite();
});

afterAll(async () => {
  await db.close();
});

/** A deterministic embedder with a given id: a vector of letter counts. */
function letters(id: string): Embedder {
  return {
    id,
    dimensions: 8,
    similarityThreshold: 0,
    async embed(texts) {
      return texts.map((text) => {
        const v = new Float32Array(8);
        for (const ch of text) v[ch.charCodeAt(0) % 8]! += 1;
        return v;
      });
    },
  };
}

describe('purge on PostgreSQL', () => {
  it("drops the erased text's cached embeddings under every embedder that cached it, and no other entry", async () => {
    const schema = 'purge_cache';
    let secretId = '';
    for (const id of ['words-a', 'words-b', 'words-c']) {
      const state = await openPostgres(pglitePool(db), { schema, embedder: letters(id) });
      if (secretId === '') {
        secretId = (await state.memory.write({ content: 'Grimsditch owes a favour' })).id;
        await state.memory.write({ content: 'the standup is at nine' });
      }
      // A hybrid recall embeds every item under this embedder: each text is cached once per embedder.
      await state.memory.recall({ query: 'favour standup', mode: 'hybrid' });
      await state.close();
    }
    const entries = async () =>
      (await db.query<{ embedder_id: string; content_hash: string }>(`SELECT embedder_id, content_hash FROM "${schema}".embedding_cache ORDER BY 1, 2`)).rows;
    expect(await entries()).toHaveLength(6);
    const state = await openPostgres(pglitePool(db), { schema, embedder: letters('words-a') });
    await state.purge({ id: secretId, reason: 'test' });
    await state.close();
    const kept = contentHash('the standup is at nine');
    expect(await entries()).toEqual(['words-a', 'words-b', 'words-c'].map((embedder_id) => ({ embedder_id, content_hash: kept })));
  });
});
