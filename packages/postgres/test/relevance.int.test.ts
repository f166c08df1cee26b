/**
 * Relevance order reads its candidates (id, sort key, version, text) and
 * the full rows of the page it keeps in two statements: a write committed
 * between them must not leak into the answer. The rows read second are
 * checked against the versions scored, and the search runs again in one
 * snapshot when they differ.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../src/index.js';
import { dropSchema, freshSchema, testServer } from './cluster.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A pool that runs `hook` once, just before the next statement reading full rows by id. */
function hookedPool(url: string): { pool: pg.Pool; before: (hook: () => Promise<void>) => void } {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let pending: (() => Promise<void>) | undefined;
  const query = pool.query.bind(pool) as (config: unknown) => Promise<unknown>;
  pool.query = (async (config: { text?: string } | string) => {
    const text = typeof config === 'string' ? config : (config.text ?? '');
    if (pending !== undefined && text.includes('r.id = ANY(')) {
      const hook = pending;
      pending = undefined;
      await hook();
    }
    return query(config);
  }) as unknown as typeof pool.query;
  return { pool, before: (hook) => (pending = hook) };
}

describe('relevance order under a concurrent write', () => {
  it('never returns a row changed after its candidates were scored', async () => {
    const { url } = await testServer();
    const schema = freshSchema();
    const { pool, before } = hookedPool(url);
    const reader = await openPostgres(pool, { schema });
    const writer = await openPostgres(url, { schema, max: 2 });
    cleanups.push(async () => {
      await reader.close();
      await writer.close();
      await pool.end();
      await dropSchema(url, schema);
    });
    const best = await writer.memory.write({ content: 'alpha alpha alpha' });
    await writer.memory.write({ content: 'alpha beta gamma delta' });
    await writer.memory.write({ content: 'alpha beta' });

    before(async () => {
      await writer.memory.update(best.id, { content: 'omega' });
    });
    const raced = await reader.memory.recall({ query: 'alpha', mode: 'lexical', order: 'relevance', limit: 2 });
    const settled = await reader.memory.recall({ query: 'alpha', mode: 'lexical', order: 'relevance', limit: 2 });

    expect(raced.map((h) => h.content)).not.toContain('omega');
    expect(raced.map((h) => [h.id, h.content, h.score])).toEqual(settled.map((h) => [h.id, h.content, h.score]));
    expect(settled).toHaveLength(2);
  });
});
