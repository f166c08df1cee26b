/**
 * Y50–Y53: memory keys and skill slugs written on stores apart (docs/contract.md §12, "Merge", "Not merged
 * yet"): a slug created apart is one skill, whose versions merge; a key held by two items is refused whole,
 * in either order.
 */
import type { EventSourcedProvider } from '@agentstate/core';
import { createInMemoryProvider, ManualClock, NotFoundError, STATE_STREAM, SyncConflictError, skillId, sync } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { T0 } from '../suite/fixtures.js';
import { type CheckEnv, checks, needing, property, type ProviderCheck } from '../suite/harness.js';
import { expectReplayEqualsTables, storedText } from './erasure.js';
import { eachClockedPair, eachPair, expectConverged } from './sync.js';

const scope = ['team'];

/** What a refused sync must leave as it was: both heads and both vectors. */
const state = async (stores: readonly EventSourcedProvider[]) => Promise.all(stores.map(async (p) => [await p.log.head(STATE_STREAM), await p.vector()]));

/** `sync(into, from)` is refused where `into` receives, as a concurrent change of `record` from `from`, and writes nothing. */
async function expectRefused(into: EventSourcedProvider, from: EventSourcedProvider, record: string): Promise<void> {
  const before = await state([into, from]);
  const error = await expectError(() => sync(into, from), SyncConflictError);
  expect([error.reason, error.record, error.origin]).toEqual(['concurrent', record, await from.replicaId()]);
  expect(error.message).toContain('nothing was received');
  expect(await state([into, from])).toEqual(before);
}

/**
 * Each store of a pair writes a record at one place (`write`, a key): a sync pulling into either is
 * refused naming the other's, and each store still reads its own there (`read`).
 */
async function expectHeldApart(
  env: CheckEnv,
  write: (p: EventSourcedProvider, text: string) => Promise<{ id: string }>,
  read: (p: EventSourcedProvider) => Promise<{ id: string }>,
): Promise<void> {
  await eachPair(env, async (a, b) => {
    const [onA, onB] = [await write(a, 'tag, then push'), await write(b, 'push, then tag')];
    await expectRefused(a, b, onB.id);
    await expectRefused(b, a, onA.id);
    expect([(await read(a)).id, (await read(b)).id]).toEqual([onA.id, onB.id]);
  });
}

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

/** One operation of Y53's stores, on the keys and slugs they share. */
type KeyOp = { kind: 'write' | 'forget' | 'upsert' | 'deleteSkill'; name: 'a' | 'b' | null; text: string };

const arbKeyOp: fc.Arbitrary<KeyOp> = fc.record({
  kind: fc.constantFrom('write' as const, 'write' as const, 'forget' as const, 'upsert' as const, 'deleteSkill' as const),
  name: fc.constantFrom('a' as const, 'b' as const, null),
  text: fc.constantFrom('alpha', 'beta', 'gamma'),
});

/** Which records a case writes: a key written on both stores is refused for good, so skills alone always meet. */
type Kinds = 'memory' | 'skills' | 'both';

/** Runs the `ops` of `kinds` on `p`, noting the ids of the items and skills it writes in `ids`; one that names nothing live is skipped. */
async function runKeyOps(p: EventSourcedProvider, ops: readonly KeyOp[], kinds: Kinds, ids: Set<string>): Promise<void> {
  for (const op of ops) {
    if (kinds !== 'both' && (op.kind === 'write' || op.kind === 'forget') !== (kinds === 'memory')) continue;
    const slug = op.name ?? 'c';
    const run = async (): Promise<{ id: string }> => {
      switch (op.kind) {
        case 'write':
          return p.memory.write({ content: op.text, key: op.name, scope });
        case 'forget':
          return p.memory.delete((await p.memory.getByKey(op.name ?? 'a', { scope })).id);
        case 'upsert':
          return p.skills.upsert({ slug, body: op.text, scope });
        case 'deleteSkill':
          return p.skills.delete(slug, { scope });
      }
    };
    await run().then(
      (record) => ids.add(record.id),
      (error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
      },
    );
  }
}

/** Y53's case: rounds of operations on two stores, each round followed by some syncs between them. */
type KeyRounds = { mixed: boolean; kinds: Kinds; rounds: { ops: [KeyOp[], KeyOp[]]; syncs: { first: number; batchSize: number }[] }[] };

const arbKeyRounds: fc.Arbitrary<KeyRounds> = fc.record({
  mixed: fc.boolean(),
  kinds: fc.constantFrom<Kinds>('memory', 'skills', 'both'),
  rounds: fc.array(
    fc.record({
      ops: fc.tuple(fc.array(arbKeyOp, { maxLength: 4 }), fc.array(arbKeyOp, { maxLength: 4 })),
      syncs: fc.array(fc.record({ first: fc.nat(1), batchSize: fc.integer({ min: 1, max: 4 }) }), { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

/**
 * A case always run: a key or slug (`kinds`) written and given up (`ops`) on the first store, written on the
 * second apart, synced once (`first`, `batchSize` as a sync of {@link KeyRounds}): either order must end the same.
 */
const givenUp = (kinds: Kinds, [write, remove]: [KeyOp['kind'], KeyOp['kind']], first: number, batchSize: number): KeyRounds => ({
  mixed: false,
  kinds,
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

/**
 * Syncs `a` and `b`: when it finishes, both read the same; when it is refused (only where memory keys were
 * written), it names a record the stores wrote and the receive it refused wrote nothing (each store holds
 * what the batches before it brought).
 */
async function syncOrRefuse([a, b]: readonly EventSourcedProvider[], batchSize: number, ids: ReadonlySet<string>, kinds: Kinds): Promise<void> {
  const [aHead, bHead] = await Promise.all([a!.log.head(STATE_STREAM), b!.log.head(STATE_STREAM)]);
  let received = { toA: 0, toB: 0 };
  const outcome = await sync(a!, b!, { batchSize, onProgress: (summary) => (received = summary) }).catch((error: unknown) => error);
  if (outcome instanceof Error) {
    if (kinds === 'skills') throw outcome;
    expect(outcome).toBeInstanceOf(SyncConflictError);
    expect((outcome as SyncConflictError).reason).toBe('concurrent');
    expect(ids.has((outcome as SyncConflictError).record!), 'the record named').toBe(true);
    expect([await a!.log.head(STATE_STREAM), await b!.log.head(STATE_STREAM)]).toEqual([aHead! + received.toA, bHead! + received.toB]);
    for (const p of [a!, b!]) await expectReplayEqualsTables(p);
  } else await expectConverged([a!, b!]);
  await expectOneHolder([a!, b!]);
}

export const syncKeyChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y50 the same memory key written on two stores apart is refused as a concurrent change naming the item that arrives, in either order, and writes nothing':
    needing([], (env) =>
      expectHeldApart(
        env,
        (p, text) => p.memory.write({ content: text, key: 'plan', scope }),
        (p) => p.memory.getByKey('plan', { scope }),
      ),
    ),

  'Y51 the same skill slug created on two stores apart is one skill: content writes, outcomes, a delete and a purge written apart on it merge, pulled either way, to equal read models that equal a replay':
    needing(['injectableClock'], (env) =>
      eachClockedPair(env, async (a, b, [, onB]) => {
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
    ),

  'Y52 a merged memory item brought back holding a key another item took meanwhile is refused, in either order': needing(['injectableClock'], async (env) => {
    await eachClockedPair(env, async (a, b, [, onB]) => {
      const first = await a.memory.write({ content: 'ship on friday', key: 'plan', scope });
      await sync(a, b);
      await a.memory.delete(first.id);
      const second = await a.memory.write({ content: 'ship next week', key: 'plan', scope });
      // Later than a's delete: it brings the first item back where the two meet.
      onB.advance(60_000);
      await b.memory.update(first.id, { content: 'ship on saturday' });
      await expectRefused(a, b, first.id);
      await expectRefused(b, a, second.id);
    });
  }),

  'Y53 property: two stores writing and deleting memory items and skills on shared keys and slugs, synced in random orders and batches, converge (always, when they write only skills) or are refused naming a record, writing nothing of the refused batch, never two holders of a key or slug':
    needing(['injectableClock'], async (env) => {
      await property(
        env,
        arbKeyRounds,
        { examples: [[givenUp('memory', ['write', 'forget'], 0, 4)], [givenUp('skills', ['upsert', 'deleteSkill'], 1, 1)]] },
        async ({ mixed, kinds, rounds }) => {
          // Both clocks move on together before each store's turn: the second store's writes are later than the first's, whatever the machine's speed.
          const clocks = [new ManualClock(T0), new ManualClock(T0)];
          const tick = () => {
            for (const clock of clocks) clock.advance(1_000);
          };
          const second = mixed ? env.closes(createInMemoryProvider({ clock: clocks[1]! })) : env.eventSourced(await env.open({ clock: clocks[1]! }));
          const stores = [env.eventSourced(await env.open({ clock: clocks[0]! })), second];
          const ids = new Set<string>();
          for (const round of rounds) {
            for (const [i, ops] of round.ops.entries()) {
              tick();
              await runKeyOps(stores[i]!, ops, kinds, ids);
            }
            for (const s of round.syncs) await syncOrRefuse(s.first === 0 ? stores : [...stores].reverse(), s.batchSize, ids, kinds);
          }
        },
      );
    }),
});
