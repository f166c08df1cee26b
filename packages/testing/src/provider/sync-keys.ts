/**
 * Y50–Y54, Y60, Y61: memory keys and skill slugs written on stores apart (docs/contract.md §12, "Merge"): a key
 * written, or a slug created, apart is one record, whose versions merge; a key's item comes back when its key
 * is written again, and a new key is a new item (§4, "Keys are slots").
 */
import type { EventSourcedProvider } from '@agentstate/core';
import {
  ConflictError,
  createInMemoryProvider,
  EventTypes,
  isUuidV7,
  ManualClock,
  memoryId,
  NotFoundError,
  skillId,
  sync,
  ValidationError,
  WORKING_MEMORY,
} from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { T0 } from '../suite/fixtures.js';
import { checks, fresh, freshLog, needing, property, type ProviderCheck } from '../suite/harness.js';
import { expectReplayEqualsTables, storedText } from './erasure.js';
import { clockedPairs, eachClockedPair, expectConverged } from './sync.js';

const scope = ['team'];

/** Each store holds at most one live item per key and one skill per slug of the scope. */
async function expectOneHolder(stores: readonly EventSourcedProvider[]): Promise<void> {
  for (const p of stores) {
    const { memory, skills } = await p.snapshot();
    const keys = memory.filter((item) => !item.deleted && item.key !== null).map((item) => item.key);
    expect(new Set(keys).size, 'live items per key').toBe(keys.length);
    const slugs = skills.map((skill) => skill.slug);
    expect(new Set(slugs).size, 'skills per slug').toBe(slugs.length);
  }
}

/** One operation of Y53's stores, on the keys and slugs they share: `move` gives the item of a key the other key. */
type KeyOp = { kind: 'write' | 'forget' | 'move' | 'upsert' | 'deleteSkill'; name: 'a' | 'b' | null; text: string };

const arbKeyOp: fc.Arbitrary<KeyOp> = fc.record({
  kind: fc.constantFrom('write' as const, 'write' as const, 'forget' as const, 'move' as const, 'upsert' as const, 'deleteSkill' as const),
  name: fc.constantFrom('a' as const, 'b' as const, null),
  text: fc.constantFrom('alpha', 'beta', 'gamma'),
});

/** Runs `ops` on `p`; one that names nothing live, or moves an item onto a held key, is skipped. */
async function runKeyOps(p: EventSourcedProvider, ops: readonly KeyOp[]): Promise<void> {
  for (const op of ops) {
    const slug = op.name ?? 'c';
    const key = op.name ?? 'a';
    const run = async (): Promise<unknown> => {
      switch (op.kind) {
        case 'write':
          return p.memory.write({ content: op.text, key: op.name, scope });
        case 'forget':
          return p.memory.delete((await p.memory.getByKey(key, { scope })).id);
        case 'move':
          return p.memory.update((await p.memory.getByKey(key, { scope })).id, { key: key === 'a' ? 'b' : 'a' });
        case 'upsert':
          return p.skills.upsert({ slug, body: op.text, scope });
        case 'deleteSkill':
          return p.skills.delete(slug, { scope });
      }
    };
    await run().catch((error: unknown) => {
      if (!(error instanceof NotFoundError) && !(error instanceof ConflictError)) throw error;
    });
  }
}

/** Y53's case: rounds of operations on two stores, each round followed by some syncs between them. */
type KeyRounds = { mixed: boolean; rounds: { ops: [KeyOp[], KeyOp[]]; syncs: { first: number; batchSize: number }[] }[] };

const arbKeyRounds: fc.Arbitrary<KeyRounds> = fc.record({
  mixed: fc.boolean(),
  rounds: fc.array(
    fc.record({
      ops: fc.tuple(fc.array(arbKeyOp, { maxLength: 4 }), fc.array(arbKeyOp, { maxLength: 4 })),
      syncs: fc.array(fc.record({ first: fc.nat(1), batchSize: fc.integer({ min: 1, max: 4 }) }), { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

/**
 * A case always run: a key or slug written and given up (`write`, `remove`) on the first store, written on the
 * second apart, synced once (`first`, `batchSize` as a sync of {@link KeyRounds}): either order must end the same.
 */
const givenUp = ([write, remove]: [KeyOp['kind'], KeyOp['kind']], first: number, batchSize: number): KeyRounds => ({
  mixed: false,
  rounds: [
    {
      ops: [
        [
          { kind: write, name: 'a', text: 'alpha' },
          { kind: remove, name: 'a', text: 'alpha' },
        ],
        [{ kind: write, name: 'a', text: 'beta' }],
      ],
      syncs: [{ first, batchSize }],
    },
  ],
});

/** A key written on two stores apart, the second store's writes later by its clock (`onB`). */
async function writtenApart(a: EventSourcedProvider, b: EventSourcedProvider, onB: ManualClock) {
  const first = await a.memory.write({ content: 'ship on friday', key: 'plan', scope, kind: 'note' });
  onB.advance(1_000);
  await b.memory.write({ content: 'ship on monday', key: 'plan', scope });
  return first;
}

export const syncKeyChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y50 the same memory key written on two stores apart is one item: pulled either way, both read the item of the key with the first creation and the later content, equal to a replay':
    needing(['injectableClock'], (env) =>
      eachClockedPair(env, async (a, b, [, onB]) => {
        const { createdAt, originInstanceId } = await writtenApart(a, b, onB);
        await b.memory.write({ content: 'ship on tuesday', key: 'plan', scope });
        await sync(b, a);
        await expectConverged([a, b]);
        const merged = { id: memoryId(scope, 'plan'), createdAt, originInstanceId, content: 'ship on tuesday', kind: 'fact', syncVersion: 3 };
        for (const p of [a, b]) expect(await p.memory.getByKey('plan', { scope })).toMatchObject(merged);
      }).then(() =>
        eachClockedPair(env, async (a, b, [, onB]) => {
          await writtenApart(a, b, onB);
          await sync(a, b);
          await expectConverged([a, b]);
          expect(await a.memory.getByKey('plan', { scope })).toMatchObject({ content: 'ship on monday', syncVersion: 2 });
        }),
      ),
    ),

  'Y51 the same skill slug created on two stores apart is one skill: content writes, outcomes, a delete and a purge written apart on it merge, pulled either way, to equal read models that equal a replay':
    clockedPairs(async (a, b, [, onB]) => {
      const deploy = { slug: 'deploy', scope };
      const first = await a.skills.upsert({ ...deploy, body: 'ship on friday' });
      // Each step's write on the second store is later than the first store's: it wins the merge.
      onB.advance(1_000);
      await b.skills.upsert({ ...deploy, body: 'ship on monday', uses: 4, wins: 1 });
      await b.skills.upsert({ ...deploy, body: 'ship on tuesday' });
      await sync(b, a);
      await expectConverged([a, b]);
      const { createdAt, originInstanceId } = first;
      const merged = { id: skillId(scope, 'deploy'), createdAt, originInstanceId, body: 'ship on tuesday', uses: 4, version: 3, syncVersion: 3 };
      expect(await a.skills.get('deploy', { scope })).toMatchObject(merged);

      await a.skills.recordOutcome('deploy', { success: true, scope });
      await b.skills.recordOutcome('deploy', { success: false, scope });
      await sync(a, b);
      await expectConverged([a, b]);
      expect(await b.skills.get('deploy', { scope })).toMatchObject({ ...merged, uses: 6, wins: 2, syncVersion: 5 });

      await a.skills.delete('deploy', { scope });
      onB.advance(1_000);
      await b.skills.upsert({ ...deploy, body: 'ship at noon' });
      await sync(b, a);
      await expectConverged([a, b]);
      expect(await a.skills.get('deploy', { scope })).toMatchObject({
        ...merged,
        body: 'ship at noon',
        uses: 6,
        wins: 2,
        version: 5,
        syncVersion: 7,
        deleted: false,
      });

      // A purge wins over a write apart; a creation apart arriving at a store that purged the slug is stored erased.
      await a.purge({ id: first.id, reason: 'request of the owner' });
      await b.skills.upsert({ ...deploy, body: 'ship at dawn' });
      const other = await a.skills.upsert({ slug: 'review', body: 'read it twice', scope });
      await a.purge({ id: other.id, reason: 'request of the owner' });
      await b.skills.upsert({ slug: 'review', body: 'read it thrice', scope });
      await sync(a, b);
      await expectConverged([a, b]);
      for (const p of [a, b]) {
        for (const slug of ['deploy', 'review']) await expectError(() => p.skills.get(slug, { scope }), NotFoundError);
        for (const text of ['ship', 'read it']) expect(await storedText(p), text).not.toContain(text);
      }
    }),

  'Y52 an item synced to both stores, deleted and written again under its key on the first while the second updates it later, is one item on both, live with the later content; written again after a purge, it syncs with its text':
    clockedPairs(async (a, b, [, onB]) => {
      const first = await a.memory.write({ content: 'ship on friday', key: 'plan', scope });
      await sync(a, b);
      await a.memory.delete(first.id);
      expect(await a.memory.write({ content: 'ship next week', key: 'plan', scope })).toMatchObject({ id: first.id, syncVersion: 3 });
      // Later than the first store's writes: its content wins where the two meet.
      onB.advance(60_000);
      await b.memory.update(first.id, { content: 'ship on saturday' });
      await sync(a, b);
      await expectConverged([a, b]);
      const merged = { id: first.id, createdAt: first.createdAt, content: 'ship on saturday', deleted: false, syncVersion: 4 };
      for (const p of [a, b]) expect(await p.memory.getByKey('plan', { scope })).toMatchObject(merged);
      // Written again after a purge, the key's item chains on it: it reaches the other store, a batch after the purge, with its text.
      await a.purge({ id: first.id, reason: 'request of the owner' });
      await a.memory.write({ content: 'ship at dawn', key: 'plan', scope });
      await sync(b, a, { batchSize: 1 });
      await expectConverged([a, b]);
      expect(await b.memory.getByKey('plan', { scope })).toMatchObject({ id: first.id, content: 'ship at dawn', syncVersion: 6 });
    }),

  'Y53 property: two stores writing, deleting and re-keying memory items and upserting and deleting skills on shared keys and slugs, synced in random orders and batches, converge, never two holders of a key or slug':
    needing(['injectableClock'], async (env) => {
      await property(
        env,
        arbKeyRounds,
        { examples: [[givenUp(['write', 'forget'], 0, 4)], [givenUp(['upsert', 'deleteSkill'], 1, 1)], [givenUp(['write', 'move'], 1, 2)]] },
        async ({ mixed, rounds }) => {
          // Both clocks move on together before each store's turn: the second store's writes are later than the first's, whatever the machine's speed.
          const clocks = [new ManualClock(T0), new ManualClock(T0)];
          const tick = () => {
            for (const clock of clocks) clock.advance(1_000);
          };
          const second = mixed ? env.closes(createInMemoryProvider({ clock: clocks[1]! })) : env.eventSourced(await env.open({ clock: clocks[1]! }));
          const stores = [env.eventSourced(await env.open({ clock: clocks[0]! })), second];
          for (const round of rounds) {
            for (const [i, ops] of round.ops.entries()) {
              tick();
              await runKeyOps(stores[i]!, ops);
            }
            for (const s of round.syncs) {
              const [a, b] = s.first === 0 ? stores : [...stores].reverse();
              await sync(a!, b!, { batchSize: s.batchSize });
              await expectConverged(stores);
              await expectOneHolder(stores);
            }
          }
        },
      );
    }),

  "Y54 a scope's working memory created on two stores apart is one document after a sync: the later text, equal on both": clockedPairs(
    async (a, b, [, onB]) => {
      await a.workingMemory.replace({ text: 'plan: ship on friday', scope });
      onB.advance(1_000);
      await b.workingMemory.patch({ append: 'plan: ship on monday', scope });
      await sync(a, b);
      await expectConverged([a, b]);
      const merged = { id: memoryId(scope, WORKING_MEMORY), content: 'plan: ship on monday', syncVersion: 2 };
      for (const p of [a, b]) expect(await p.workingMemory.get({ scope })).toMatchObject(merged);
    },
  ),
});

/** Y60, Y61: a key's item on one store (docs/contract.md §4, "Keys are slots"). */
export const keyItemChecks: ProviderCheck[] = checks([], {
  "Y60 a write under the key of a deleted item brings that item back: its id and creation, its next version, the write's fields; after a purge too, without the purged text; another caller id is a ValidationError":
    freshLog(async (p) => {
      const first = await p.memory.write({ content: 'ship on friday', key: 'plan', scope, kind: 'note', metadata: { by: 'ana' } });
      expect(first.id).toBe(memoryId(scope, 'plan'));
      expect((await expectError(() => p.memory.write({ content: 'x', key: 'goal', scope, id: 'mine' }), ValidationError)).field).toBe('id');
      await p.memory.delete(first.id);
      const back = await p.memory.write({ content: 'ship next week', key: 'plan', scope });
      expect(back).toMatchObject({ id: first.id, createdAt: first.createdAt, kind: 'fact', metadata: {}, syncVersion: 3, deleted: false });
      const types = [EventTypes.MemoryWritten, EventTypes.MemoryDeleted, EventTypes.MemoryUpdated];
      expect((await p.history(first.id)).map((v) => v.type)).toEqual(types);
      await p.purge({ id: first.id, reason: 'request of the owner' });
      expect(await p.memory.write({ content: 'ship at dawn', key: 'plan', scope })).toMatchObject({ id: first.id, key: 'plan', syncVersion: 5 });
      for (const text of ['friday', 'next week']) expect(await storedText(p), text).not.toContain(text);
      await expectReplayEqualsTables(p);
    }),

  'Y61 an update giving an item another key writes the item of that key, which it returns, and deletes the item; no key gives a new item; a held key is a ConflictError; a retry answers the item written':
    fresh(async (p) => {
      const first = await p.memory.write({ content: 'ship on friday', key: 'plan', scope, kind: 'note' });
      const moved = await p.memory.update(first.id, { key: 'goal', operationId: 'op-move' });
      expect(moved).toMatchObject({ id: memoryId(scope, 'goal'), key: 'goal', content: 'ship on friday', kind: 'note', syncVersion: 1 });
      expect(await p.memory.getAny(first.id)).toMatchObject({ key: 'plan', content: 'ship on friday', deleted: true });
      expect(await p.memory.update(first.id, { key: 'goal', operationId: 'op-move' })).toEqual(moved);
      const unkeyed = await p.memory.update(moved.id, { key: null, content: 'ship on monday' });
      expect([isUuidV7(unkeyed.id), unkeyed.key, (await p.memory.getAny(moved.id)).deleted]).toEqual([true, null, true]);
      const back = await p.memory.update(unkeyed.id, { key: 'plan' });
      expect(back).toMatchObject({ id: first.id, createdAt: first.createdAt, content: 'ship on monday', syncVersion: 3 });
      await p.memory.write({ content: 'ship it', key: 'goal', scope });
      await expectError(() => p.memory.update(back.id, { key: 'goal' }), ConflictError);
      expect((await p.memory.getByKey('plan', { scope })).id).toBe(first.id);
    }),
});
