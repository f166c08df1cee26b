/**
 * Memory that changes: the fold rules of `memory.written`, `memory.updated`
 * and `memory.deleted` (property: every stamped change folds, every forged
 * variant is refused), the v1 upcaster's defaults, and the where matcher.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { MemoryItem, StateChange } from '@agentstate/core';
import {
  CorruptionError,
  createInMemoryProvider,
  decodeStateEvent,
  EventTypes,
  ManualClock,
  matchesWhere,
  seededEntropy,
  STATE_STREAM,
  whereInputSchema,
} from '@agentstate/core';
import { InMemoryState } from '@agentstate/core/backend';
import { upcastV1MemoryItem } from '../src/log/legacy/v1.js';

const T0 = Date.UTC(2026, 0, 1);

/** A live log of writes, updates and deletes, decoded. */
async function liveChanges(steps: readonly { key: string | null; meta: number; remove: boolean }[]): Promise<StateChange[]> {
  const clock = new ManualClock(T0);
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(3), instanceId: 'live' });
  const ids: string[] = [];
  for (const step of steps) {
    clock.advance(1);
    if (step.remove && ids.length > 0) {
      await p.memory.delete(ids.pop()!).catch(() => undefined);
      continue;
    }
    const item = await p.memory.write({ content: `c${step.meta}`, key: step.key, metadata: { n: step.meta } });
    if (!ids.includes(item.id)) ids.push(item.id);
    if (step.meta % 2 === 0) await p.memory.update(item.id, { metadata: { n: step.meta + 1 }, content: 'changed' });
  }
  return (await p.log.read({ stream: STATE_STREAM })).map((e) => decodeStateEvent(e));
}

const arbSteps = fc.array(fc.record({ key: fc.constantFrom('a', 'b', null), meta: fc.nat(5), remove: fc.boolean() }), { minLength: 1, maxLength: 12 });

/** Forgeries of a memory change that the stamper never produces. */
const FORGERIES: Record<string, (item: MemoryItem) => MemoryItem> = {
  'scope changed': (item) => ({ ...item, scope: [...item.scope, 'x'] }),
  'createdAt changed': (item) => ({ ...item, createdAt: '2000-01-01T00:00:00.000Z' }),
  'updatedAt moved back': (item) => ({ ...item, updatedAt: '2000-01-01T00:00:00.000Z' }),
  'syncVersion skipped': (item) => ({ ...item, syncVersion: item.syncVersion + 1 }),
};

function foldAll(changes: readonly StateChange[]): void {
  const state = new InMemoryState();
  changes.forEach((change, i) => {
    state.apply(change, i + 1);
  });
}

describe('memory fold rules', () => {
  it('fold every live log of keyed writes, updates and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(arbSteps, async (steps) => foldAll(await liveChanges(steps))),
      { numRuns: 40 },
    );
  });

  it('refuse a forged update or tombstone with a CorruptionError naming its seq', async () => {
    await fc.assert(
      fc.asyncProperty(arbSteps, fc.constantFrom(...Object.keys(FORGERIES)), async (steps, forgery) => {
        const changes = await liveChanges(steps);
        const at = changes.findIndex((c) => c.type !== EventTypes.MemoryWritten);
        fc.pre(at >= 0);
        const change = changes[at]! as Extract<StateChange, { payload: { item: MemoryItem } }>;
        const forged = { ...change, payload: { item: FORGERIES[forgery]!(change.payload.item) } } as StateChange;
        expect(() => foldAll([...changes.slice(0, at), forged])).toThrow(CorruptionError);
      }),
      { numRuns: 40 },
    );
  });

  it('refuse a second live holder of a key in one scope, and a tombstone that changes content', async () => {
    const changes = await liveChanges([{ key: 'a', meta: 1, remove: false }]);
    const first = changes[0]! as Extract<StateChange, { type: 'memory.written' }>;
    const twin = { ...first, payload: { item: { ...first.payload.item, id: 'twin' } } };
    expect(() => foldAll([first, twin])).toThrow(/memory key "a" in this scope is held by/);
    const p = createInMemoryProvider({ clock: new ManualClock(T0), instanceId: 'live' });
    const item = await p.memory.write({ content: 'x', metadata: { a: 1 } });
    await p.memory.delete(item.id);
    const [written, deleted] = (await p.log.read({ stream: STATE_STREAM })).map((e) => decodeStateEvent(e)) as Extract<
      StateChange,
      { type: 'memory.written' }
    >[];
    const forged = { ...deleted!, payload: { item: { ...deleted!.payload.item, metadata: { a: 2 } } } };
    expect(() => foldAll([written!, forged])).toThrow(/metadata changed/);
  });
});

describe('the key index of live memory', () => {
  /** The holder of every key as the live items say: what the index must answer. */
  const holders = (state: InMemoryState) =>
    new Map([...state.memory.values()].filter((m) => !m.deleted && m.key !== null).map((m) => [`${JSON.stringify(m.scope)}/${m.key}`, m.id]));
  const answers = (state: InMemoryState, keys: readonly string[]) =>
    new Map(keys.flatMap((key) => (state.memoryIdWithKey([], key) === undefined ? [] : [[`[]/${key}`, state.memoryIdWithKey([], key)!]])));

  it('answers as the live items do, whether first asked before, during or after the fold, and after a restore', async () => {
    await fc.assert(
      fc.asyncProperty(arbSteps, fc.nat(), async (steps, cut) => {
        const changes = await liveChanges(steps);
        const at = cut % (changes.length + 1);
        const early = new InMemoryState();
        changes.forEach((change, i) => {
          // Asked mid-way, the index is built then and kept up to date by every later change.
          if (i === at) answers(early, ['a', 'b']);
          early.apply(change, i + 1);
        });
        const restored = new InMemoryState();
        restored.restoreCollections(early.capture());
        const late = new InMemoryState();
        changes.forEach((change, i) => {
          late.apply(change, i + 1, false);
        });
        for (const state of [early, restored, late]) expect(answers(state, ['a', 'b'])).toEqual(holders(state));
      }),
      { numRuns: 60 },
    );
  });
});

describe('the v1 upcaster of memory items', () => {
  it('gives no key, empty metadata, no expiry and updatedAt = createdAt', () => {
    const v1 = { id: 'm', kind: 'fact', content: 'c', createdAt: '2025-01-01T00:00:00.000Z' };
    expect(upcastV1MemoryItem(v1)).toEqual({ ...v1, key: null, metadata: {}, expiresAt: null, updatedAt: v1.createdAt });
  });
});

describe('the where matcher', () => {
  const where = (w: unknown) => whereInputSchema.parse(w);
  it('walks objects, never arrays, and never compares across types', () => {
    const metadata = { a: { b: 2 }, list: [1, 2], s: '10', big: 1e21 };
    expect(matchesWhere(metadata, where({ 'a.b': 2 }))).toBe(true);
    expect(matchesWhere(metadata, where({ 'list.0': 1 }))).toBe(false);
    expect(matchesWhere(metadata, where({ s: { $gt: 9 } }))).toBe(false);
    expect(matchesWhere(metadata, where({ s: { $gt: '1' } }))).toBe(true);
    expect(matchesWhere(metadata, where({ big: { $gte: 1e21, $lt: 1e22 } }))).toBe(true);
    expect(matchesWhere(metadata, where({ missing: { $ne: 1 } }))).toBe(true);
    expect(matchesWhere(metadata, where({ a: { $exists: true }, 'a.c': { $exists: false } }))).toBe(true);
  });

  it('refuses unknown operators, empty operator objects, empty path segments and non-finite numbers', () => {
    for (const bad of [{ a: { $regex: 'x' } }, { a: {} }, { 'a..b': 1 }, { a: { $gt: true } }, { a: Number.NaN }]) {
      expect(whereInputSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
