import type { Clock, Provider } from '@agentstate/core';
import { ConflictError, createInMemoryProvider, ValidationError } from '@agentstate/core';
import { InvalidNamespaceError, type Item, type Operation } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { AgentStateStore, STORE_KIND, UNINDEXED_KIND } from '../src/index.js';

const keys = (items: Array<{ key: string }>): string[] => items.map((i) => i.key);

/** A clock a millisecond later at every reading, so every write has its own instant. */
function tickingClock(): Clock {
  let ms = Date.UTC(2026, 0, 1);
  return { now: () => (ms += 1) };
}

function open(options: ConstructorParameters<typeof AgentStateStore>[1] = {}): { provider: Provider; store: AgentStateStore } {
  const provider = createInMemoryProvider({ clock: tickingClock() });
  return { provider, store: new AgentStateStore(provider, options) };
}

describe('AgentStateStore', () => {
  it('keeps a value as the metadata of a keyed memory item in the namespace scope, with its record times', async () => {
    const { provider, store } = open();
    await store.put(['users', 'u1'], 'prefs', { theme: 'dark' });
    const first = await store.get(['users', 'u1'], 'prefs');
    await store.put(['users', 'u1'], 'prefs', { theme: 'light' });
    const item = await provider.memory.getByKey('prefs', { scope: ['users', 'u1'] });
    expect(item).toMatchObject({ kind: STORE_KIND, source: 'langgraph', metadata: { theme: 'light' }, syncVersion: 2 });
    const second = await store.get(['users', 'u1'], 'prefs');
    expect(second).toEqual({
      namespace: ['users', 'u1'],
      key: 'prefs',
      value: { theme: 'light' },
      createdAt: new Date(item.createdAt),
      updatedAt: new Date(item.updatedAt),
    });
    expect(second?.createdAt).toEqual(first?.createdAt);
    await store.delete(['users', 'u1'], 'prefs');
    expect(await store.get(['users', 'u1'], 'prefs')).toBeNull();
    await store.delete(['users', 'u1'], 'prefs');
  });

  it('lists without a query newest update first, with limit (default 10) and offset', async () => {
    const { store } = open();
    for (let i = 0; i < 12; i += 1) await store.put(['docs'], `d${i}`, { i });
    await store.put(['docs'], 'd0', { i: 0, again: true });
    expect(keys(await store.search(['docs']))).toEqual(['d0', 'd11', 'd10', 'd9', 'd8', 'd7', 'd6', 'd5', 'd4', 'd3']);
    expect(keys(await store.search(['docs'], { offset: 10, limit: 5 }))).toEqual(['d2', 'd1']);
    expect(keys(await store.search([], { limit: 2 }))).toEqual(['d0', 'd11']);
  });

  it('answers a query by recall over the indexed fields, best first, with scores', async () => {
    const { store } = open({ index: { fields: ['title', 'tags[*]'] } });
    await store.put(['docs'], 'a', { title: 'Deploy runbook', body: 'kubernetes rollout', tags: ['ops'] });
    await store.put(['docs'], 'b', { title: 'Lunch menu', body: 'deploy the soup', tags: ['food', 'deploy'] });
    await store.put(['docs'], 'c', { title: 'Deploy deploy checklist' }, false);
    await store.put(['docs'], 'd', { body: 'no title, nothing to index' });
    const hits = await store.search(['docs'], { query: 'deploy' });
    expect(keys(hits).sort()).toEqual(['a', 'b']);
    for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
    expect(keys(await store.search(['docs'], { query: 'kubernetes' }))).toEqual([]);
    expect(keys(await store.search(['docs'], { query: 'deploy', filter: { tags: { $exists: false } } }))).toEqual([]);
    expect(keys(await store.search(['docs'], { query: 'deploy', limit: 1, offset: 1 }))).toHaveLength(1);
    // Not indexed items are still read and listed.
    expect((await store.get(['docs'], 'c'))?.value).toEqual({ title: 'Deploy deploy checklist' });
    expect(keys(await store.search(['docs'])).sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('indexes the whole value by default, and a put may choose its own fields', async () => {
    const { provider, store } = open();
    await store.put(['n'], 'x', { note: 'Café opens at nine' });
    await store.put(['n'], 'y', { note: 'tea', other: 'secret word' }, ['note']);
    await store.put(['n'], 'z', { note: 'hidden' }, false);
    expect(keys(await store.search(['n'], { query: 'cafe' }))).toEqual(['x']);
    expect(keys(await store.search(['n'], { query: 'secret' }))).toEqual([]);
    expect(keys(await store.search(['n'], { query: 'tea' }))).toEqual(['y']);
    expect(keys(await store.search(['n'], { query: 'hidden' }))).toEqual([]);
    expect((await provider.memory.getByKey('z', { scope: ['n'] })).kind).toBe(UNINDEXED_KIND);
  });

  it('maps filters to metadata filters, keeping what LangGraph answers without looking', async () => {
    const { store } = open();
    await store.put(['f'], 'one', { n: 1, s: 'x', user: { plan: 'pro' } });
    await store.put(['f'], 'two', { n: 2, s: 'y' });
    await store.put(['f'], 'none', { s: 'y' });
    const found = async (filter: Record<string, unknown>): Promise<string[]> => keys(await store.search(['f'], { filter })).sort();
    expect(await found({ n: { $gt: 1 } })).toEqual(['two']);
    expect(await found({ n: { $gte: 1, $lt: 2 } })).toEqual(['one']);
    expect(await found({ n: { $ne: 1 } })).toEqual(['none', 'two']);
    expect(await found({ s: 'y', n: { $in: [2, 3] } })).toEqual(['two']);
    expect(await found({ n: { $nin: [1] } })).toEqual(['none', 'two']);
    expect(await found({ n: undefined })).toEqual(['none']);
    expect(await found({ n: {} })).toEqual(['none', 'one', 'two']);
    expect(await found({ n: [1] })).toEqual([]);
    expect(await found({ user: { plan: 'pro' } })).toEqual([]);
    expect(await found({ 'user.plan': 'pro' })).toEqual(['one']);
    await expect(store.search(['f'], { filter: { n: { $near: 1 } } })).rejects.toBeInstanceOf(ValidationError);
  });

  it('lists namespaces holding store items by prefix (with *), suffix, depth, limit and offset', async () => {
    const { provider, store } = open();
    for (const ns of [['a', 'x', '1'], ['a', 'y'], ['b', 'x'], ['b', 'x', '2'], ['c']]) await store.put(ns, 'k', { v: 1 });
    await provider.memory.write({ content: 'not a store item', scope: ['d'] });
    await provider.sessions.create({ scope: ['e'] });
    await store.delete(['c'], 'k');
    expect(await store.listNamespaces()).toEqual([
      ['a', 'x', '1'],
      ['a', 'y'],
      ['b', 'x'],
      ['b', 'x', '2'],
    ]);
    expect(await store.listNamespaces({ prefix: ['*', 'x'] })).toEqual([
      ['a', 'x', '1'],
      ['b', 'x'],
      ['b', 'x', '2'],
    ]);
    expect(await store.listNamespaces({ suffix: ['x'] })).toEqual([['b', 'x']]);
    expect(await store.listNamespaces({ maxDepth: 1 })).toEqual([['a'], ['b']]);
    expect(await store.listNamespaces({ maxDepth: 2, limit: 2, offset: 1 })).toEqual([
      ['a', 'y'],
      ['b', 'x'],
    ]);
  });

  it('runs a batch as the reference does: reads before writes, the last write to a key wins', async () => {
    const { store } = open();
    await store.put(['b'], 'k', { v: 0 });
    const ops: Operation[] = [
      { namespace: ['b'], key: 'k', value: { v: 1 } },
      { namespace: ['b'], key: 'k' },
      { namespacePrefix: ['b'], limit: 10, offset: 0 },
      { namespace: ['b'], key: 'k', value: { v: 2 } },
      { namespace: ['b'], key: 'gone', value: { v: 3 } },
      { namespace: ['b'], key: 'gone', value: null },
      { matchConditions: [], limit: 10, offset: 0 },
    ];
    const [put, get, search, , , , list] = (await store.batch(ops)) as unknown[];
    expect(put).toBeUndefined();
    expect((get as Item).value).toEqual({ v: 0 });
    expect((search as Item[]).map((i) => i.value)).toEqual([{ v: 0 }]);
    expect(list).toEqual([['b']]);
    expect((await store.get(['b'], 'k'))?.value).toEqual({ v: 2 });
    expect(await store.get(['b'], 'gone')).toBeNull();
  });

  it('checks every operation of a batch before writing any', async () => {
    const { store } = open();
    const big = { text: 'x'.repeat(70_000) };
    await expect(
      store.batch([
        { namespace: ['ok'], key: 'first', value: { v: 1 } },
        { namespace: ['ok'], key: 'second', value: big },
      ]),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      store.batch([
        { namespace: ['ok'], key: 'first', value: { v: 1 } },
        { namespace: Array(17).fill('deep'), key: 'k', value: {} },
      ]),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      store.batch([
        { namespace: ['ok'], key: 'first', value: { v: 1 } },
        { namespace: ['ok'], key: '', value: {} },
      ]),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      store.batch([
        { namespace: ['ok'], key: 'first', value: { v: 1 } },
        { namespace: ['a.b'], key: 'k', value: {} },
      ]),
    ).rejects.toBeInstanceOf(InvalidNamespaceError);
    await expect(store.batch([{ namespace: ['ok'], key: 'first', value: { v: 1 } }, { nonsense: true } as unknown as Operation])).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(store.batch([{ namespace: [], key: 'k', value: {} }])).rejects.toBeInstanceOf(InvalidNamespaceError);
    await expect(store.put(['langgraph'], 'k', {})).rejects.toBeInstanceOf(InvalidNamespaceError);
    await expect(store.put(['ok'], 'k', { when: new Date(0) })).rejects.toBeInstanceOf(ValidationError);
    expect(await store.get(['ok'], 'first')).toBeNull();
    expect(await store.search([])).toEqual([]);
  });

  it('leaves a key held by other memory alone: not read, not listed, and a put is a ConflictError', async () => {
    const { provider, store } = open();
    const other = await provider.memory.write({ content: 'the user likes tea', key: 'prefs', scope: ['users', 'u1'] });
    expect(await store.get(['users', 'u1'], 'prefs')).toBeNull();
    expect(await store.search(['users'])).toEqual([]);
    expect(await store.listNamespaces()).toEqual([]);
    await expect(store.put(['users', 'u1'], 'prefs', { theme: 'dark' })).rejects.toBeInstanceOf(ConflictError);
    await store.delete(['users', 'u1'], 'prefs');
    expect(await provider.memory.get(other.id)).toEqual(other);
  });

  it('retries a write that failed retryably under the same operation id, so it applies once', async () => {
    const provider = createInMemoryProvider();
    let failures = 1;
    const memory = new Proxy(provider.memory, {
      get(target, name, receiver) {
        if (name !== 'write') return Reflect.get(target, name, receiver);
        return async (input: Parameters<typeof target.write>[0]) => {
          const written = await target.write(input);
          // The write committed, but the caller hears a busy lock: the retry must not write again.
          if (failures-- > 0) throw new ConflictError('database is busy');
          return written;
        };
      },
    });
    const flaky: Provider = {
      name: provider.name,
      sessions: provider.sessions,
      skills: provider.skills,
      memory,
      workingMemory: provider.workingMemory,
      checkpoints: provider.checkpoints,
      namespaces: (options) => provider.namespaces(options),
      close: () => provider.close(),
    };
    const store = new AgentStateStore(flaky, { batchId: () => 'b1' });
    await store.put(['r'], 'k', { v: 1 });
    const item = await provider.memory.getByKey('k', { scope: ['r'] });
    expect(item).toMatchObject({ metadata: { v: 1 }, syncVersion: 1 });
    expect(failures).toBe(-1);
  });
});
