import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@agentstate/sqlite';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '@agentstate/core';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { AgentStateStore, langchainEmbedder, openSqliteStore } from '../src/index.js';

/** LangChain embeddings that know two topics and their synonyms: a text's vector counts its words of each. */
class TopicEmbeddings implements EmbeddingsInterface {
  readonly model = 'topics-v1';
  readonly calls: string[][] = [];
  static readonly TOPICS = [new Set(['tea', 'chai', 'matcha']), new Set(['deploy', 'release', 'rollout'])];
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls.push(texts);
    return texts.map((text) => {
      const words = text.toLowerCase().split(/\W+/);
      return [...TopicEmbeddings.TOPICS.map((topic) => words.filter((w) => topic.has(w)).length), 0.01];
    });
  }
  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'agentstate-langgraph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plain = (items: Array<{ namespace: string[]; key: string; value: unknown; createdAt: Date; updatedAt: Date }>) =>
  items.map(({ namespace, key, value, createdAt, updatedAt }) => ({ namespace, key, value, createdAt, updatedAt }));

describe('the store in an SQLite file', () => {
  it('keeps items, their times and namespaces across a reopen', async () => {
    const path = join(dir, 'durable.db');
    const store = await openSqliteStore(path);
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
    await store.close();

    const again = await openSqliteStore(path);
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
    const provider = await openSqlite(join(dir, 'hybrid.db'), { embedder: createStaticEmbedder() });
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
    // Every item gets a score in [0, 1]; the two that match the words score above the rest.
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(0);
    expect(scores[1]).toBeGreaterThan(scores[2] ?? 0);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    await store.close();
    // The store did not open the provider, so closing it left the provider open.
    expect((await provider.memory.recall({ kinds: ['langgraph.item'] })).length).toBe(3);
    await provider.close();
  });

  it('takes LangChain embeddings as InMemoryStore does, and finds by meaning', async () => {
    const embeddings = new TopicEmbeddings();
    const store = await openSqliteStore(join(dir, 'langchain.db'), { index: { embeddings, dims: 3, fields: ['text'] } });
    await store.put(['notes'], 'drink', { text: 'Ada drinks matcha every morning' });
    await store.put(['notes'], 'ship', { text: 'The release went out on Friday' });
    const hits = await store.search(['notes'], { query: 'chai' });
    // As InMemoryStore, a query ranks every item by similarity: the one about tea comes first.
    expect(hits.map((hit) => hit.key)).toEqual(['drink', 'ship']);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 1);
    expect(embeddings.calls.flat()).toContain('Ada drinks matcha every morning');
    await store.close();
    expect(langchainEmbedder(embeddings, 3).id).toBe('langchain:TopicEmbeddings:topics-v1:3');
    expect(langchainEmbedder(embeddings, 3, 'mine').id).toBe('mine');
    await expect(langchainEmbedder(embeddings, 2).embed(['tea'])).rejects.toBeInstanceOf(ValidationError);
    await expect(openSqliteStore(':memory:', { index: { embeddings } })).rejects.toThrow(ValidationError);
  });

  it('lets two stores on one file write the same keys at once without losing or doubling an item', async () => {
    const path = join(dir, 'shared.db');
    const first = await openSqliteStore(path);
    const second = await openSqliteStore(path);
    const writes = [];
    for (let i = 0; i < 20; i += 1) {
      writes.push(first.put(['shared'], `k${i % 5}`, { by: 'first', i }));
      writes.push(second.put(['shared'], `k${i % 5}`, { by: 'second', i }));
    }
    await Promise.all(writes);
    const items = await first.search(['shared'], { limit: 100 });
    expect(items.map((item) => item.key).sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect((await second.search(['shared'], { limit: 100 })).map((item) => item.value)).toEqual(items.map((item) => item.value));
    await first.close();
    await second.close();
  });
});
