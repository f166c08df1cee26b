/** P1–P7: cursor pagination (docs/contract.md §4, "Pages"). */
import { ManualClock, type Page, type Provider } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectInvalid } from '../suite/expect-error.js';
import { ids, T0 } from '../suite/fixtures.js';
import { checks, fresh, property, type ProviderCheck } from '../suite/harness.js';

/** Follows cursors from the first page to the last; fails on a runaway loop. */
async function collect<T>(read: (cursor: string | undefined) => Promise<Page<T>>, between?: () => Promise<void>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10_000; pages += 1) {
    const page = await read(cursor);
    out.push(...page);
    if (page.nextCursor === undefined) return out;
    expect(typeof page.nextCursor).toBe('string');
    cursor = page.nextCursor;
    await between?.();
  }
  return expect.fail('paging did not end');
}

/** A provider with a few records of every kind, some sharing a createdAt (ties by id). */
async function seed(p: Provider, clock: ManualClock | undefined): Promise<{ session: string }> {
  for (let i = 0; i < 7; i += 1) {
    await p.sessions.create({ title: `s${i}` });
    await p.skills.upsert({ slug: `skill-${i % 3}-${i}`, body: `deploy step ${'again '.repeat(i)}` });
    await p.memory.write({ content: `deploy note ${'more '.repeat(i % 4)}`, kind: i % 2 === 0 ? 'fact' : 'note' });
    if (clock && i % 3 === 2) clock.advance(1);
  }
  const session = await p.sessions.create({ title: 'transcript' });
  for (let i = 0; i < 9; i += 1) await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${i}` });
  for (let i = 0; i < 5; i += 1) await p.skills.recordOutcome(`skill-${i % 3}-${i}`, { success: i % 2 === 0 });
  return { session: session.id };
}

export const pageChecks: ProviderCheck[] = checks([], {
  'P1 a page is an array with a non-enumerable nextCursor, undefined when nothing more matched': fresh(async (p) => {
    for (let i = 0; i < 3; i += 1) await p.sessions.create({ title: `s${i}` });
    const first = await p.sessions.list({ limit: 2 });
    expect([Array.isArray(first), first.length, Object.keys(first)]).toEqual([true, 2, ['0', '1']]);
    expect(JSON.parse(JSON.stringify(first))).toEqual(JSON.parse(JSON.stringify([...first])));
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const last = await p.sessions.list({ limit: 2, cursor: first.nextCursor });
    expect([last.length, last.nextCursor]).toEqual([1, undefined]);
    // Exactly `limit` left: the last page says so, with no empty page after it.
    const pages = [await p.sessions.list({ limit: 3 }), await p.sessions.list(), await p.skills.list(), await p.memory.recall({ query: 'nothing here' })];
    expect(pages.map((page) => page.nextCursor)).toEqual([undefined, undefined, undefined, undefined]);
  }),
  'P2 following nextCursor enumerates exactly the unpaged result in order, for every list, search and recall and every order': async (env) => {
    const clock = env.caps.injectableClock ? new ManualClock(T0) : undefined;
    const p = await env.open(clock ? { clock } : undefined);
    const { session } = await seed(p, clock);
    for (const size of [1, 2, 3]) {
      expect(ids(await collect((cursor) => p.sessions.list({ limit: size, cursor })))).toEqual(ids(await p.sessions.list()));
      expect(ids(await collect((cursor) => p.sessions.turns(session, { limit: size, cursor })))).toEqual(ids(await p.sessions.turns(session)));
      const after4 = await collect((cursor) => p.sessions.turns(session, { afterSeq: 4, limit: size, cursor }));
      expect(ids(after4)).toEqual(ids(await p.sessions.turns(session, { afterSeq: 4 })));
      expect(ids(await collect((cursor) => p.skills.list({ limit: size, cursor })))).toEqual(ids(await p.skills.list()));
      for (const order of ['slug', 'relevance', 'winRate'] as const) {
        for (const [query, match] of [
          ['', 'all'],
          ['deploy again', 'all'],
          ['deploy again', 'any'],
        ] as const) {
          const all = await p.skills.search(query, { order, match });
          expect(all.length).toBeGreaterThan(size);
          expect(ids(await collect((cursor) => p.skills.search(query, { order, match, limit: size, cursor })))).toEqual(ids(all));
        }
      }
      for (const order of ['recent', 'relevance'] as const) {
        for (const o of [{ query: 'deploy more' }, { query: 'deploy', kinds: ['fact'] }, { query: 'deploy more', match: 'any' as const }, {}]) {
          const all = await p.memory.recall({ ...o, mode: 'lexical', order, limit: 100 });
          expect(all.length).toBeGreaterThan(size);
          const paged = await collect((cursor) => p.memory.recall({ ...o, mode: 'lexical', order, limit: size, cursor }));
          expect(paged.map((h) => [h.id, h.score])).toEqual(all.map((h) => [h.id, h.score]));
        }
      }
    }
    // The page size may change from page to page.
    const first = await p.sessions.list({ limit: 2 });
    expect([...ids(first), ...ids(await p.sessions.list({ limit: 100, cursor: first.nextCursor }))]).toEqual(ids(await p.sessions.list()));
    // An offset skips on the first page only.
    expect(ids(await collect((cursor) => p.sessions.list({ offset: 3, limit: 2, cursor })))).toEqual(ids(await p.sessions.list()).slice(3));
  },
  'P3 a cursor resumes only its own query: a foreign, tampered or malformed cursor is a ValidationError on cursor': fresh(async (p) => {
    const { session } = await seed(p, undefined);
    const other = await p.sessions.create({ title: 'other' });
    await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'x' });
    await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'y' });
    await p.skills.upsert({ slug: 'a', body: 'deploy', scope: ['project:p'] });
    await p.skills.upsert({ slug: 'b', body: 'deploy', scope: ['project:p'] });
    const sessionCursor = (await p.sessions.list({ limit: 1 })).nextCursor!;
    const turnCursor = (await p.sessions.turns(session, { limit: 1 })).nextCursor!;
    const skillCursor = (await p.skills.list({ limit: 1 })).nextCursor!;
    const searchCursor = (await p.skills.search('deploy', { limit: 1 })).nextCursor!;
    const recallCursor = (await p.memory.recall({ query: 'deploy', mode: 'lexical', limit: 1 })).nextCursor!;
    for (const c of [sessionCursor, turnCursor, skillCursor, searchCursor, recallCursor]) expect(typeof c).toBe('string');

    const refused = (call: () => Promise<unknown>, label: string) => expectInvalid(call, 'cursor', label);
    // Another method's cursor.
    await refused(() => p.sessions.list({ limit: 1, cursor: skillCursor }), 'skills.list cursor on sessions.list');
    await refused(() => p.skills.list({ cursor: sessionCursor }), 'sessions.list cursor on skills.list');
    await refused(() => p.memory.recall({ query: 'deploy', mode: 'lexical', cursor: searchCursor }), 'search cursor on recall');
    // The same method, another query.
    await refused(() => p.sessions.turns(other.id, { limit: 1, cursor: turnCursor }), 'another session');
    await refused(() => p.sessions.turns(session, { afterSeq: 2, cursor: turnCursor }), 'another afterSeq');
    await refused(() => p.sessions.list({ offset: 1, cursor: sessionCursor }), 'another offset');
    await refused(() => p.skills.list({ scope: ['project:p'], cursor: skillCursor }), 'another scope');
    await refused(() => p.skills.search('deploy again', { limit: 1, cursor: searchCursor }), 'another search text');
    await refused(() => p.skills.search('deploy', { order: 'relevance', cursor: searchCursor }), 'another order');
    await refused(() => p.memory.recall({ query: 'note', mode: 'lexical', cursor: recallCursor }), 'another recall query');
    await refused(() => p.memory.recall({ query: 'deploy', mode: 'lexical', kinds: ['fact'], cursor: recallCursor }), 'another kind filter');
    await refused(() => p.memory.recall({ query: 'deploy', mode: 'lexical', order: 'relevance', cursor: recallCursor }), 'another recall order');
    // Malformed: not base64url, not ours, tampered, truncated, empty, not a string.
    const flipped = recallCursor.slice(0, 10) + (recallCursor[10] === 'A' ? 'B' : 'A') + recallCursor.slice(11);
    const forged = Buffer.from(JSON.stringify([1, 'x', ['a', 'b'], 1]), 'utf8').toString('base64url');
    for (const cursor of ['%%%', 'bm90IGpzb24', flipped, recallCursor.slice(0, -3), '', forged, 'A'.repeat(5_000)]) {
      await refused(() => p.memory.recall({ query: 'deploy', mode: 'lexical', limit: 1, cursor }), `malformed ${cursor.slice(0, 20)}`);
    }
    await refused(() => p.sessions.list({ cursor: 42 as unknown as string }), 'a number');
    // The genuine cursors still work.
    expect(await p.memory.recall({ query: 'deploy', mode: 'lexical', limit: 1, cursor: recallCursor })).toHaveLength(1);
    expect(await p.sessions.list({ limit: 1, cursor: sessionCursor })).toHaveLength(1);
  }),
  'P4 property: writes interleaved with paging never skip or repeat a record that existed when paging began': (env) => {
    const write = fc.constantFrom('add', 'delete-seen', 'delete-unseen', 'none');
    const kinds = fc.constantFrom('sessions', 'skills', 'memory', 'turns');
    const arbitrary = fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 4 }), fc.array(fc.tuple(write, fc.nat()), { maxLength: 12 }), kinds);
    return property(env, arbitrary, async ([initial, size, writes, kind]) => {
      const p = await env.open();
      const transcript = await p.sessions.create({ title: 't' });
      let counter = 0;
      const add = async (): Promise<string> => {
        counter += 1;
        if (kind === 'sessions') return (await p.sessions.create({ title: `n${counter}` })).id;
        if (kind === 'skills') return (await p.skills.upsert({ slug: `k-${(counter * 7919) % 1000}-${counter}`, body: 'b' })).id;
        if (kind === 'memory') return (await p.memory.write({ content: `fact ${counter}` })).id;
        return (await p.sessions.appendTurn({ sessionId: transcript.id, role: 'user', content: `t${counter}` })).id;
      };
      const remove = async (id: string): Promise<void> => {
        if (kind === 'sessions') await p.sessions.delete(id);
        else if (kind === 'skills') await p.skills.delete(id);
        else if (kind === 'memory') await p.memory.delete(id);
      };
      const read = (cursor: string | undefined): Promise<Page<{ id: string }>> => {
        if (kind === 'sessions') return p.sessions.list({ limit: size, cursor });
        if (kind === 'skills') return p.skills.list({ limit: size, cursor });
        if (kind === 'memory') return p.memory.recall({ query: 'fact', mode: 'lexical', limit: size, cursor });
        return p.sessions.turns(transcript.id, { limit: size, cursor });
      };
      for (let i = 0; i < initial; i += 1) await add();
      const before = new Set(ids(kind === 'sessions' ? (await p.sessions.list()).filter((s) => s.id !== transcript.id) : await collect(read)));
      const deleted = new Set<string>();
      const deletedUnseen = new Set<string>();
      const seen: string[] = [];
      let step = 0;
      const between = async (): Promise<void> => {
        // Each write happens once: cycling them would add records as fast as pages consume them.
        const [what, n] = writes[step] ?? ['none', 0];
        step += 1;
        if (what === 'add') await add();
        // Turns are never deleted; sessions keep the transcript's session.
        const candidates = [...before].filter((id) => !deleted.has(id) && (what === 'delete-seen') === seen.includes(id));
        if ((what === 'delete-seen' || what === 'delete-unseen') && kind !== 'turns' && candidates.length > 0) {
          const id = candidates[n % candidates.length]!;
          await remove(id);
          deleted.add(id);
          if (!seen.includes(id)) deletedUnseen.add(id);
        }
      };
      const paged = await collect(async (cursor) => {
        const page = await read(cursor);
        seen.push(...ids(page));
        return page;
      }, between);
      const got = ids(paged).filter((id) => id !== transcript.id);
      expect(new Set(got).size).toBe(got.length);
      for (const id of before) if (!deleted.has(id)) expect(got).toContain(id);
      // A record deleted before its page came is not served from its tombstone.
      for (const id of got) expect(deletedUnseen.has(id)).toBe(false);
    });
  },
  'P5 a recall without a limit (the default page) enumerates every match through its cursors': fresh(async (p) => {
    const written: string[] = [];
    for (let i = 0; i < 45; i += 1) written.push((await p.memory.write({ content: `enumerate ${i}` })).id);
    expect(await p.memory.recall({ query: 'enumerate', mode: 'lexical' })).toHaveLength(20);
    expect(ids(await collect((cursor) => p.memory.recall({ query: 'enumerate', mode: 'lexical', cursor })))).toEqual([...written].reverse());
  }),
  'P6 provider.namespaces pages: following nextCursor enumerates exactly the unpaged namespaces, and a foreign cursor is refused': fresh(async (p) => {
    // Labels that sort apart from their JSON text: a prefix before its descendants, `a` before
    // `a b`, `a/b` as one label.
    for (const scope of [['a'], ['a', 'b'], ['a', 'b', 'c'], ['a b'], ['a/b'], ['a', 'c'], ['b'], ['b', 'a'], ['z']]) {
      await p.memory.write({ content: `note ${scope.join(' ')}`, scope });
    }
    await p.sessions.create({ title: 'global' });
    await p.sessions.create({ title: 'global too' });
    for (const options of [{}, { prefix: ['a'] }, { maxDepth: 1 }, { prefix: ['a'], maxDepth: 2 }]) {
      const all = await p.namespaces(options);
      expect(all.nextCursor).toBeUndefined();
      for (const size of [1, 2, 3]) {
        expect(await collect((cursor) => p.namespaces({ ...options, limit: size, cursor }))).toEqual(all);
      }
    }
    const cursor = (await p.namespaces({ limit: 2 })).nextCursor!;
    expect(typeof cursor).toBe('string');
    for (const [label, call] of [
      ['another prefix', () => p.namespaces({ prefix: ['a'], cursor })],
      ['another depth', () => p.namespaces({ maxDepth: 1, cursor })],
      ['another method', () => p.sessions.list({ cursor })],
      ['a sessions.list cursor', async () => p.namespaces({ cursor: (await p.sessions.list({ limit: 1 })).nextCursor! })],
    ] as const)
      await expectInvalid(call, 'cursor', label);
  }),
  'P7 sessions.search pages: following nextCursor enumerates exactly the unpaged hits in both orders, and a foreign cursor is refused': async (env) => {
    const clock = env.caps.injectableClock ? new ManualClock(T0) : undefined;
    const p = await env.open(clock ? { clock } : undefined);
    const first = await p.sessions.create({ title: 'one', scope: ['team', 'a'] });
    const second = await p.sessions.create({ title: 'two', scope: ['team'] });
    for (let i = 0; i < 8; i += 1) {
      // Turns sharing a createdAt (ties by id) and repeated words (ties by score).
      for (const session of [first, second]) {
        await p.sessions.appendTurn({ sessionId: session.id, role: i % 2 === 0 ? 'user' : 'assistant', content: `deploy ${'again '.repeat(i % 3)}${i}` });
      }
      if (clock && i % 3 === 2) clock.advance(1);
    }
    const hit = (h: { turn: { id: string }; score: number; before: unknown[] }) => [h.turn.id, h.score, h.before.length];
    for (const order of ['recent', 'relevance'] as const) {
      for (const o of [
        { query: 'deploy again' },
        { query: 'deploy again', match: 'any' as const },
        { query: 'deploy', roles: ['user' as const] },
        { query: 'deploy', scope: ['team'], includeDescendants: true },
        { query: 'deploy', sessionId: first.id, context: 0 },
        {},
      ]) {
        const all = await p.sessions.search({ ...o, mode: 'lexical', order, limit: 100 });
        expect(all.nextCursor).toBeUndefined();
        expect(all.length).toBeGreaterThan(3);
        for (const size of [1, 2, 3]) {
          expect((await collect((cursor) => p.sessions.search({ ...o, mode: 'lexical', order, limit: size, cursor }))).map(hit)).toEqual(all.map(hit));
        }
      }
    }
    const cursor = (await p.sessions.search({ query: 'deploy', mode: 'lexical', limit: 1 })).nextCursor!;
    expect(typeof cursor).toBe('string');
    for (const [label, call] of [
      ['another query', () => p.sessions.search({ query: 'again', mode: 'lexical', cursor })],
      ['another order', () => p.sessions.search({ query: 'deploy', mode: 'lexical', order: 'relevance', cursor })],
      ['another scope', () => p.sessions.search({ query: 'deploy', mode: 'lexical', scope: ['team'], cursor })],
      ['another session', () => p.sessions.search({ query: 'deploy', mode: 'lexical', sessionId: first.id, cursor })],
      ['recall with a search cursor', () => p.memory.recall({ query: 'deploy', mode: 'lexical', cursor })],
      ['malformed', () => p.sessions.search({ query: 'deploy', mode: 'lexical', cursor: '%%%' })],
    ] as const)
      await expectInvalid(call, 'cursor', label);
    // The genuine cursor still works.
    expect(await p.sessions.search({ query: 'deploy', mode: 'lexical', limit: 1, cursor })).toHaveLength(1);
  },
});
