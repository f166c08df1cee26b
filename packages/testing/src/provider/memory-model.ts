/** M1–M7: memory that changes (keys, metadata, expiry, updates, filters). */
import type { JsonObject, WhereInput } from '@agentstate/core';
import { ConflictError, EventTypes, matchesWhere, NotFoundError, STATE_STREAM, ValidationError, whereInputSchema } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { arbMetadata, arbWhere } from '../arbitraries/metadata.js';
import { expectError } from '../suite/expect-error.js';
import { T0 } from '../suite/fixtures.js';
import { checks, clocked, fresh, freshLog, type ProviderCheck } from '../suite/harness.js';

const ids = (hits: readonly { id: string }[]): string[] => hits.map((h) => h.id).sort();

/** The ids of live items whose metadata the core matcher accepts. */
function expectedIds(items: readonly { id: string; metadata: JsonObject }[], where: WhereInput): string[] {
  const filter = whereInputSchema.parse(where);
  return ids(items.filter((item) => matchesWhere(item.metadata, filter)));
}

export const memoryModelChecks: ProviderCheck[] = checks([], {
  'M1 a new item has no key, empty metadata, no expiry and updatedAt equal to createdAt': fresh(async (p) => {
    const item = await p.memory.write({ content: 'plain fact' });
    expect(item).toMatchObject({ key: null, metadata: {}, expiresAt: null, updatedAt: item.createdAt });
    const full = await p.memory.write({ content: 'theme', key: 'user.theme', metadata: { tag: 'ui', n: 2 }, expiresAt: '2999-01-01T00:00:00Z' });
    expect(full).toMatchObject({ key: 'user.theme', metadata: { tag: 'ui', n: 2 }, expiresAt: '2999-01-01T00:00:00.000Z' });
    expect(await p.memory.get(full.id)).toEqual(full);
  }),
  'M2 memory.update replaces the given fields, bumps syncVersion and checks a non-zero syncVersion': fresh(async (p) => {
    const item = await p.memory.write({ content: 'first', kind: 'note', metadata: { a: 1 } });
    const updated = await p.memory.update(item.id, { content: 'second', metadata: { a: 2 }, syncVersion: 1 });
    expect(updated).toMatchObject({ id: item.id, content: 'second', kind: 'note', metadata: { a: 2 }, syncVersion: 2, createdAt: item.createdAt });
    expect([updated.updatedAt >= item.updatedAt, await p.memory.get(item.id)]).toEqual([true, updated]);
    await expectError(() => p.memory.update(item.id, { content: 'stale', syncVersion: 1 }), ConflictError);
    await expectError(() => p.memory.update('missing', { content: 'x' }), NotFoundError);
    expect(await p.memory.get(item.id)).toEqual(updated);
  }),
  'M8 memory.update appends one memory.updated event holding the post-image; a refused update appends none': freshLog(async (p) => {
    const item = await p.memory.write({ content: 'first' });
    const updated = await p.memory.update(item.id, { content: 'second' });
    await expectError(() => p.memory.update(item.id, { content: 'stale', syncVersion: 1 }), ConflictError);
    // A field update cannot change (the scope, the id) is refused, not dropped.
    await expectError(() => p.memory.update(item.id, { content: 'moved', scope: ['elsewhere'] } as never), ValidationError);
    const events = await p.log.read({ stream: STATE_STREAM });
    expect([events.map((e) => e.type), events[1]!.payload]).toEqual([[EventTypes.MemoryWritten, EventTypes.MemoryUpdated], { item: updated }]);
  }),
  'M3 a key is one slot per scope: writing it again updates the holder, even deleted; another id is ConflictError': fresh(async (p) => {
    const first = await p.memory.write({ content: 'dark', key: 'theme' });
    expect(await p.memory.write({ content: 'light', key: 'theme' })).toMatchObject({ id: first.id, content: 'light', key: 'theme', syncVersion: 2 });
    expect((await p.memory.write({ content: 'blue', key: 'theme', scope: ['project:x'] })).id).not.toBe(first.id);
    await expectError(() => p.memory.write({ id: 'other-id', content: 'x', key: 'theme' }), ConflictError);
    const other = await p.memory.write({ content: 'other' });
    await expectError(() => p.memory.update(other.id, { key: 'theme' }), ConflictError);
    await p.memory.delete(first.id);
    const again = await p.memory.write({ content: 'again', key: 'theme' });
    expect([again.id === first.id, again.syncVersion, again.deleted]).toEqual([true, 4, false]);
  }),
  'M4 an expired item is invisible at once; sweep tombstones each expired item and counts them': clocked(async (p, clock) => {
    const soon = new Date(T0 + 1000).toISOString();
    const expiring = await p.memory.write({ content: 'short lived', expiresAt: soon });
    const lasting = await p.memory.write({ content: 'long lived' });
    expect(ids(await p.memory.recall({ query: 'lived' }))).toEqual(ids([expiring, lasting]));
    clock.advance(1000);
    await expectError(() => p.memory.get(expiring.id), NotFoundError);
    await expectError(() => p.memory.update(expiring.id, { content: 'x' }), NotFoundError);
    expect(ids(await p.memory.recall({ query: 'lived' }))).toEqual([lasting.id]);
    expect([await p.memory.sweep(), await p.memory.sweep(), ids(await p.memory.recall({}))]).toEqual([1, 0, [lasting.id]]);
  }),
  'M5 a keyed write into an expired slot updates it, taking the defaults of a new write': clocked(async (p, clock) => {
    const old = await p.memory.write({ content: 'old', key: 'k', kind: 'note', metadata: { a: 1 }, expiresAt: new Date(T0 + 10).toISOString() });
    clock.advance(10);
    const renewed = await p.memory.write({ content: 'new', key: 'k' });
    expect(renewed).toMatchObject({ id: old.id, content: 'new', kind: 'fact', metadata: {}, expiresAt: null, syncVersion: 2 });
    expect(await p.memory.get(old.id)).toEqual(renewed);
  }),
  'M6 recall with where: dotted paths, operators, types that never cross': fresh(async (p) => {
    const a = await p.memory.write({ content: 'note a', metadata: { tag: 'x', n: 3, user: { plan: 'pro' } } });
    const b = await p.memory.write({ content: 'note b', metadata: { tag: 'y', n: '3' } });
    const c = await p.memory.write({ content: 'note c', metadata: {} });
    const recalled = async (where: WhereInput) => ids(await p.memory.recall({ query: 'note', where }));
    expect([await recalled({ 'user.plan': 'pro' }), await recalled({ n: { $gt: 2 } }), await recalled({ n: { $gt: '2' } })]).toEqual([[a.id], [a.id], [b.id]]);
    expect([await recalled({ tag: { $in: ['x', 'y'] } }), await recalled({ tag: { $ne: 'x' } })]).toEqual([ids([a, b]), ids([b, c])]);
    expect([await recalled({ tag: { $exists: false } }), await recalled({ tag: { $nin: ['x'] }, n: { $exists: true } })]).toEqual([[c.id], [b.id]]);
  }),
  'M7 property: recall with where agrees with core’s matcher on generated metadata and filters': fresh(async (p) => {
    const metadata = fc.sample(arbMetadata(), { numRuns: 40, seed: 11 });
    const items = [];
    for (const m of metadata) items.push(await p.memory.write({ content: 'item', metadata: m }));
    for (const where of fc.sample(arbWhere(), { numRuns: 60, seed: 12 })) {
      expect(ids(await p.memory.recall({ where, limit: 1000 })), JSON.stringify(where)).toEqual(expectedIds(items, where));
    }
  }),
});
