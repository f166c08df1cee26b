/** N1–N5: scope paths, scoped sessions, listings with descendants, and `provider.namespaces`. */
import { LIMITS, type Provider, type ScopeInput } from '@agentstate/core';
import { expect } from 'vitest';
import { expectInvalid } from '../suite/expect-error.js';
import { checks, fresh, type ProviderCheck } from '../suite/harness.js';

/** Scopes whose keys sit next to each other: siblings that share text, labels holding JSON syntax. */
const TRICKY: readonly (readonly string[])[] = [[], ['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'bc'], ['ab'], ['a"', 'b'], ['a', 'b,'], ['a\\'], ['b']];

async function sessionsIn(p: Provider): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const scope of TRICKY) ids.set(JSON.stringify(scope), (await p.sessions.create({ title: JSON.stringify(scope), scope })).id);
  return ids;
}

const titles = (list: readonly { title: string }[]): string[] => list.map((s) => s.title).sort();
const keys = (scopes: readonly (readonly string[])[]): string[] => scopes.map((s) => JSON.stringify(s)).sort();
/** The keys of `['a', 'b']` and the one scope of {@link TRICKY} below it. */
const AB_AND_BELOW = ['["a","b","c"]', '["a","b"]'];
/** The keys of `['a']` and the scopes of {@link TRICKY} below it. */
const A_AND_BELOW = keys([['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'bc'], ['a', 'b,']]);

export const namespaceChecks: ProviderCheck[] = checks([], {
  'N1 a scope is a path of labels; bad paths and scope objects are ValidationError and write nothing': fresh(async (p) => {
    const path = await p.memory.write({ content: 'path', scope: ['team', 'web'] });
    expect(path.scope).toEqual(['team', 'web']);
    const bad: [string, unknown][] = [
      ['scope', { project: 'web' }],
      ['scope.1', ['a', '']],
      ['scope', Array.from({ length: LIMITS.scopeDepth + 1 }, () => 'x')],
      ['scope.1', ['a', 1]],
      ['scope', 'a/b'],
      ['scope.0', ['a\u0000']],
    ];
    for (const [field, scope] of bad) {
      await expectInvalid(() => p.memory.write({ content: 'x', scope: scope as ScopeInput }), field);
      await expectInvalid(() => p.sessions.create({ scope: scope as ScopeInput }), field);
    }
    expect([(await p.memory.recall({ limit: 10 })).map((m) => m.id), await p.sessions.list()]).toEqual([[path.id], []]);
    expect((await p.skills.upsert({ slug: 'deep', scope: Array.from({ length: LIMITS.scopeDepth }, () => 'x') })).scope).toHaveLength(LIMITS.scopeDepth);
  }),
  'N2 sessions.create takes a scope (default global) that get, list and every later version keep': fresh(async (p) => {
    expect((await p.sessions.create({ title: 'g' })).scope).toEqual([]);
    const scoped = await p.sessions.create({ title: 's', scope: ['project:web'] });
    expect(scoped.scope).toEqual(['project:web']);
    await p.sessions.appendTurn({ sessionId: scoped.id, role: 'user', content: 'hi' });
    expect([(await p.sessions.get(scoped.id)).scope, (await p.sessions.list()).map((s) => s.scope)]).toEqual([['project:web'], [[], ['project:web']]]);
    expect((await p.sessions.delete(scoped.id)).scope).toEqual(['project:web']);
  }),
  'N3 sessions.list by scope is exact; with includeDescendants it adds the longer paths the scope prefixes, and nothing else': fresh(async (p) => {
    const ids = await sessionsIn(p);
    expect(await p.sessions.list()).toHaveLength(TRICKY.length);
    expect(titles(await p.sessions.list({ scope: ['a', 'b'] }))).toEqual(['["a","b"]']);
    expect(titles(await p.sessions.list({ scope: ['a', 'b'], includeDescendants: true }))).toEqual(AB_AND_BELOW);
    expect(titles(await p.sessions.list({ scope: ['a'], includeDescendants: true }))).toEqual(A_AND_BELOW);
    expect(titles(await p.sessions.list({ scope: [], includeDescendants: true }))).toEqual(keys(TRICKY));
    expect(titles(await p.sessions.list({ scope: [] }))).toEqual(['[]']);
    expect(titles(await p.sessions.list({ scope: ['a"'], includeDescendants: true }))).toEqual(['["a\\"","b"]']);
    expect(titles(await p.sessions.list({ scope: ['zzz'], includeDescendants: true }))).toEqual([]);
    await p.sessions.delete(ids.get('["a","b","c"]')!);
    expect(titles(await p.sessions.list({ scope: ['a', 'b'], includeDescendants: true }))).toEqual(['["a","b"]']);
  }),
  'N4 skills.list, skills.search and memory.recall take includeDescendants, alone or with includeParentScopes': fresh(async (p) => {
    for (const scope of TRICKY) {
      await p.skills.upsert({ slug: 'deploy', body: `deploy ${JSON.stringify(scope)}`, scope });
      await p.memory.write({ content: `note ${JSON.stringify(scope)}`, scope });
    }
    const scopesOf = (list: readonly { scope: readonly string[] }[]): string[] => keys(list.map((r) => r.scope));
    expect(scopesOf(await p.skills.list({ scope: ['a', 'b'] }))).toEqual(keys([['a', 'b']]));
    expect(scopesOf(await p.skills.list({ scope: ['a', 'b'], includeDescendants: true }))).toEqual(AB_AND_BELOW);
    const chainAndBelow = keys([[], ['a'], ['a', 'b'], ['a', 'b', 'c']]);
    expect(scopesOf(await p.skills.search('deploy', { scope: ['a', 'b'], includeDescendants: true, includeParentScopes: true }))).toEqual(chainAndBelow);
    expect(scopesOf(await p.skills.search('deploy', { scope: ['a', 'b'], includeDescendants: true }))).toEqual(AB_AND_BELOW);
    expect(scopesOf(await p.memory.recall({ query: 'note', scope: ['a', 'b'], includeDescendants: true, includeParentScopes: true, limit: 50 }))).toEqual(
      chainAndBelow,
    );
    expect(scopesOf(await p.memory.recall({ scope: ['a'], includeDescendants: true, limit: 50 }))).toEqual(A_AND_BELOW);
    expect(scopesOf(await p.memory.recall({ scope: ['a', 'b'], limit: 50 }))).toEqual(keys([['a', 'b']]));
  }),
  'N5 namespaces lists the distinct scopes of live records under a prefix, truncated to maxDepth, label by label in code-point order, capped by limit': fresh(
    async (p) => {
      expect(await p.namespaces()).toEqual([]);
      await sessionsIn(p);
      await p.skills.upsert({ slug: 's', scope: ['\u{1F600}'] });
      await p.skills.upsert({ slug: 's', scope: ['\uFFFF'] });
      await p.memory.delete((await p.memory.write({ content: 'gone', scope: ['zz', 'top'] })).id);
      const all = ['', 'a', 'a/b', 'a/b/c', 'a/b,', 'a/bc', 'a"/b', 'a\\', 'ab', 'b', '\uFFFF', '\u{1F600}'];
      expect((await p.namespaces()).map((scope) => scope.join('/'))).toEqual(all);
      expect(await p.namespaces({ prefix: ['a'] })).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b,'], ['a', 'bc']]);
      expect(await p.namespaces({ prefix: ['a'], maxDepth: 2 })).toEqual([['a'], ['a', 'b'], ['a', 'b,'], ['a', 'bc']]);
      expect([await p.namespaces({ maxDepth: 1, limit: 3 }), await p.namespaces({ maxDepth: 0 })]).toEqual([[[], ['a'], ['a"']], [[]]]);
      expect(await p.namespaces({ prefix: ['zz'] })).toEqual([]);
      await expectInvalid(() => p.namespaces({ maxDepth: -1 }), 'maxDepth');
      await expectInvalid(() => p.namespaces({ prefix: ['a', ''] }), 'prefix.1');
    },
  ),
});
