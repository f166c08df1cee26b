import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STATIC_EMBEDDER_ID, STATIC_SIMILARITY_THRESHOLD } from '@agentstate/embeddings';
import { openSqlite } from '@agentstate/sqlite';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('semantic recall without a named embedder', () => {
  it('uses the offline static embedder, and keeps lexical recall the default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-default-embedder-'));
    dirs.push(dir);
    const state = openSqlite(join(dir, 'agent.db'));
    await state.memory.write({ content: 'The user prefers dark mode in every editor' });
    await state.memory.write({ content: 'Deploys to production happen on Fridays' });
    expect(await state.memory.recall({ query: 'user likes a dark theme' })).toEqual([]);
    const hits = await state.memory.recall({ query: 'user likes a dark theme', mode: 'semantic', order: 'relevance', minScore: STATIC_SIMILARITY_THRESHOLD });
    expect(hits.map((h) => h.content)).toEqual(['The user prefers dark mode in every editor']);
    expect(hits[0]!.score).toBeGreaterThan(0.55);
    const hybrid = await state.memory.recall({ query: 'which day do we ship to prod', mode: 'hybrid', order: 'relevance' });
    expect(hybrid[0]!.content).toBe('Deploys to production happen on Fridays');
    await state.close();
    expect(STATIC_EMBEDDER_ID).toMatch(/glove/);
  });
});
