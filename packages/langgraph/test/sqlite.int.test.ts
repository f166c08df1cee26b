import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDefaultEmbedder, openSqlite } from '@agentstate/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentStateStore, openSqliteStore } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'agentstate-langgraph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plain = (items: Array<{ namespace: string[]; key: string; value: unknown; createdAt: Date; updatedAt: Date }>) =>
  items.map(({ namespace, key, value, createdAt, updatedAt }) => ({ namespace, key, value, createdAt, updatedAt }));

describe('the store in an SQLite file', () => {
  it('keeps items, their times and namespaces across a reopen', async () => {
    const path = join(dir, 'durable.db');
    const store = openSqliteStore(path);
    await store.put(['users', 'u1'], 'prefs', { theme: 'dark', plan: 'pro' });
    await store.put(['users', 'u2'], 'prefs', { theme: 'light' });
    await store.put(['users', 'u2', 'notes'], 'n1', { text: 'likes green tea' }, ['text']);
    await store.put(['users', 'u2'], 'gone', { v: 1 });
    await store.delete(['users', 'u2'], 'gone');
    const before = {
      listed: plain(await store.search(['users'])),
      namespaces: await store.listNamespaces(),
      found: plain(await store.search([], { query: 'tea' })),
    };
    await store.stop();

    const again = openSqliteStore(path);
    expect(plain(await again.search(['users']))).toEqual(before.listed);
    expect(await again.listNamespaces()).toEqual(before.namespaces);
    expect(before.namespaces).toEqual([
      ['users', 'u1'],
      ['users', 'u2'],
      ['users', 'u2', 'notes'],
    ]);
    expect(plain(await again.search([], { query: 'tea' }))).toEqual(before.found);
    expect(before.found.map((item) => item.key)).toEqual(['n1']);
    expect((await again.get(['users', 'u1'], 'prefs'))?.value).toEqual({ theme: 'dark', plan: 'pro' });
    expect(await again.get(['users', 'u2'], 'gone')).toBeNull();
    await again.close();
  });

  it('answers a query by hybrid recall when the provider has an embedder, with scores best first', async () => {
    const provider = openSqlite(join(dir, 'hybrid.db'), { embedder: await createDefaultEmbedder() });
    const store = new AgentStateStore(provider, { index: { fields: ['text'] } });
    await store.put(['docs'], 'a', { text: 'The deploy pipeline failed on staging' });
    await store.put(['docs'], 'b', { text: 'Lunch is at noon in the cafeteria' });
    await store.put(['docs'], 'c', { text: 'Roll back the failed deploy, then redeploy' });
    const hits = await store.search(['docs'], { query: 'deploy failed' });
    expect(
      hits
        .map((hit) => hit.key)
        .slice(0, 2)
        .sort(),
    ).toEqual(['a', 'c']);
    const scores = hits.map((hit) => hit.score ?? Number.NaN);
    for (const score of scores) expect(score).toBeGreaterThan(0);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    await store.close();
    // The store did not open the provider, so closing it left the provider open.
    expect((await provider.memory.recall({ kinds: ['langgraph.item'] })).length).toBe(3);
    await provider.close();
  });
});
