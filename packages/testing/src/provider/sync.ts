/** Y1–Y29: sync between stores (docs/contract.md §12), each between two of the factory's providers and between one and an in-memory provider. */
import type { EventSourcedProvider, MemoryItem, Provider, Scope, Snapshot, SyncEvent, SyncOptions, SyncPeer, Turn } from '@agentstate/core';
import {
  compareHlc,
  ConflictError,
  createInMemoryProvider,
  ERASED,
  encodeSnapshot,
  ManualClock,
  NotFoundError,
  STATE_STREAM,
  SyncConflictError,
  sync,
  syncDigest,
} from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectError, expectInvalid } from '../suite/expect-error.js';
import { conceptEmbedder } from '../suite/concept-embedder.js';
import { HOUR, ids, marked, T0, turnLines } from '../suite/fixtures.js';
import type { ProviderFactoryOptions } from '../factory.js';
import { type CheckEnv, checks, needing, property, type ProviderCheck } from '../suite/harness.js';
import { expectReplayEqualsTables, storedText } from './erasure.js';

/** The read model without local seqs, which differ between replicas: what two synced stores must agree on. */
export function replicaText(snapshot: Snapshot): string {
  return encodeSnapshot({ ...snapshot, seq: 0, operations: snapshot.operations.map((operation) => ({ ...operation, seq: 0 })) });
}

/** Two stores of the factory, and one of the factory beside an in-memory one, each store opened with a new `options()`: each check runs on both pairs. */
export async function eachPair(
  env: CheckEnv,
  body: (a: EventSourcedProvider, b: EventSourcedProvider) => Promise<void>,
  options: () => ProviderFactoryOptions = () => ({}),
): Promise<void> {
  const open = async () => env.eventSourced(await env.open(options()));
  await env.scoped(async () => body(await open(), await open()));
  await env.scoped(async () => body(await open(), env.closes(createInMemoryProvider(options()))));
}

/** {@link eachPair} with each store on a manual clock of its own at {@link T0} (and `options`), handed to `body` beside the stores. */
export async function eachClockedPair(
  env: CheckEnv,
  body: (a: EventSourcedProvider, b: EventSourcedProvider, clocks: [ManualClock, ManualClock]) => Promise<void>,
  options: () => ProviderFactoryOptions = () => ({}),
): Promise<void> {
  const clocks: ManualClock[] = [];
  const clock = () => clocks[clocks.push(new ManualClock(T0)) - 1]!;
  await eachPair(
    env,
    (a, b) => body(a, b, clocks.slice(-2) as [ManualClock, ManualClock]),
    () => ({ ...options(), clock: clock() }),
  );
}

/** A check body run on {@link eachPair}'s pairs (handed the environment too). */
export const pairs = (body: (a: EventSourcedProvider, b: EventSourcedProvider, env: CheckEnv) => Promise<void>) => (env: CheckEnv) =>
  eachPair(env, (a, b) => body(a, b, env));

/** A check body (needing `injectableClock`) run on {@link eachPair}'s pairs on manual clocks, the first store's `ahead` ms ahead of the second's. */
export const skewedPairs = (ahead: number, body: (a: EventSourcedProvider, b: EventSourcedProvider, env: CheckEnv) => Promise<void>) =>
  needing(['injectableClock'], (env) => {
    let n = 0;
    return eachPair(
      env,
      (a, b) => body(a, b, env),
      () => ({ clock: new ManualClock(n++ % 2 === 0 ? T0 + ahead : T0) }),
    );
  });

/** A check body (needing `eventSourced`, `sync` and `injectableClock`) run on {@link eachClockedPair}'s pairs. */
export const clockedPairs = (body: (a: EventSourcedProvider, b: EventSourcedProvider, clocks: [ManualClock, ManualClock]) => Promise<void>) =>
  needing(['eventSourced', 'sync', 'injectableClock'], (env) => eachClockedPair(env, body));

/** A session of `contents` turns written on `a`, received by `b`. */
export async function sharedSession(a: EventSourcedProvider, b: EventSourcedProvider, contents: readonly string[]): Promise<{ id: string; turns: Turn[] }> {
  const session = await a.sessions.create({ title: 'shared' });
  const turns: Turn[] = [];
  for (const content of contents) turns.push(await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content }));
  await sync(a, b);
  return { id: session.id, turns };
}

/** Some work of every kind in `scope`, so two stores writing in two scopes never touch each other's records. */
async function work(p: Provider, scope: string, text: string): Promise<void> {
  const session = await p.sessions.create({ title: `${text} chat`, scope: [scope] });
  await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `${text} question` });
  await p.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: `${text} answer` });
  const item = await p.memory.write({ content: `${text} fact`, key: 'fact', scope: [scope], operationId: `${scope}-fact` });
  await p.memory.update(item.id, { content: `${text} fact, revised` });
  await p.skills.upsert({ slug: 'deploy', body: `${text} steps`, scope: [scope] });
  await p.skills.recordOutcome('deploy', { success: true, scope: [scope] });
}

/** Both stores read the same, and each equals a replay of its own log. */
async function expectConverged(stores: readonly EventSourcedProvider[]): Promise<void> {
  const texts = await Promise.all(stores.map(async (p) => replicaText(await p.snapshot())));
  for (const text of texts.slice(1)) expect(text, 'read models of the replicas').toBe(texts[0]);
  for (const p of stores) await expectReplayEqualsTables(p);
}

/** A final exchange (the first store with each other, twice) leaves the stores converged. */
export async function expectExchanged(stores: readonly EventSourcedProvider[]): Promise<void> {
  for (let round = 0; round < 2; round += 1) for (const other of stores.slice(1)) await sync(stores[0]!, other);
  await expectConverged(stores);
}

/** The heads of the stores' logs: what a sync that writes nothing leaves as it was. */
const heads = (stores: readonly EventSourcedProvider[]) => Promise.all(stores.map((p) => p.log.head(STATE_STREAM)));

const words = fc.constantFrom('alpha', 'beta', 'gamma', 'delta');
/** One operation of Y7's replicas, each in its replica's own scope. */
const arbReplicaOp = fc.oneof(
  fc.record({ kind: fc.constant('session' as const), text: words }),
  fc.record({ kind: fc.constant('turn' as const), session: fc.nat(3), text: words }),
  fc.record({ kind: fc.constant('deleteSession' as const), session: fc.nat(3) }),
  fc.record({ kind: fc.constant('memory' as const), key: fc.constantFrom(null, 'k1', 'k2'), text: words }),
  fc.record({ kind: fc.constant('updateMemory' as const), item: fc.nat(3), text: words }),
  fc.record({ kind: fc.constant('deleteMemory' as const), item: fc.nat(3) }),
  fc.record({ kind: fc.constant('skill' as const), slug: fc.constantFrom('a', 'b'), text: words }),
  fc.record({ kind: fc.constant('outcome' as const), slug: fc.constantFrom('a', 'b'), success: fc.boolean() }),
  fc.record({ kind: fc.constant('purge' as const), session: fc.boolean(), index: fc.nat(3) }),
);
type ReplicaOp = typeof arbReplicaOp extends fc.Arbitrary<infer O> ? O : never;

/** Runs `ops` on `p` in `scope` (a label: the scope of that one label); a refused operation (a deleted record, a missing skill) is skipped. */
async function runReplicaOps(p: EventSourcedProvider, scope: string | Scope, ops: readonly ReplicaOp[]): Promise<void> {
  const at = typeof scope === 'string' ? [scope] : scope;
  const sessions: string[] = [];
  const items: string[] = [];
  const pick = (ids: string[], i: number) => ids[i % ids.length]!;
  for (const op of ops) {
    const run = async (): Promise<unknown> => {
      switch (op.kind) {
        case 'session':
          return sessions.push((await p.sessions.create({ title: op.text, scope: at })).id);
        case 'turn':
          return sessions.length > 0 && p.sessions.appendTurn({ sessionId: pick(sessions, op.session), role: 'user', content: op.text });
        case 'deleteSession':
          return sessions.length > 0 && p.sessions.delete(pick(sessions, op.session));
        case 'memory':
          return items.push((await p.memory.write({ content: op.text, key: op.key, scope: at })).id);
        case 'updateMemory':
          return items.length > 0 && p.memory.update(pick(items, op.item), { content: op.text });
        case 'deleteMemory':
          return items.length > 0 && p.memory.delete(pick(items, op.item));
        case 'skill':
          return p.skills.upsert({ slug: op.slug, body: op.text, scope: at });
        case 'outcome':
          return p.skills.recordOutcome(op.slug, { success: op.success, scope: at });
        case 'purge': {
          const ids = op.session ? sessions : items;
          return ids.length > 0 && p.purge({ id: pick(ids, op.index), reason: 'property' });
        }
      }
    };
    await run().catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
  }
}

/**
 * Y7's and Y13's case: `n` replicas' operations of `op` (up to `maxOps` each) in `rounds` rounds, each round followed by
 * some pairwise syncs, interrupted after `stopAfter` batches when given, or (Y13) a batch received twice.
 */
const arbRounds = <O>(n: number, op: fc.Arbitrary<O>, maxOps: number, rounds: number) =>
  fc.array(
    fc.record({
      ops: fc.array(fc.array(op, { maxLength: maxOps }), { minLength: n, maxLength: n }),
      syncs: fc.array(
        fc.record({ a: fc.nat(n - 1), b: fc.nat(n - 1), batchSize: fc.integer({ min: 1, max: 4 }), stopAfter: fc.option(fc.nat(2)), duplicate: fc.boolean() }),
        { maxLength: 4 },
      ),
    }),
    { minLength: 1, maxLength: rounds },
  );

/** Y7's case: 2 or 3 replicas. */
export const arbFleet = fc.integer({ min: 2, max: 3 }).chain((n) => fc.record({ rounds: arbRounds(n, arbReplicaOp, 5, 3), n: fc.constant(n) }));

/** `p` as a peer that is not a provider of this process, as a store in another process or behind HTTP is: a sync with it goes batch by batch. */
export const batchByBatch = (p: EventSourcedProvider): SyncPeer => ({
  vector: (options) => p.vector(options),
  changes: (vector, options) => p.changes(vector, options),
  receive: (events, options) => p.receive(events, options),
  replicaId: () => p.replicaId(),
  retention: p.retention,
});

/** Syncs `a` and `b` (unless they are one store), stopped after `stopAfter` batches when given (an interrupted sync). */
export async function syncSome(a: EventSourcedProvider, b: SyncPeer, { stopAfter, ...options }: SyncOptions & { stopAfter: number | null }): Promise<void> {
  if (a === b) return;
  const stop = new AbortController();
  const onProgress = ({ batches }: { batches: number }) => (stopAfter !== null && batches >= stopAfter ? stop.abort('stopped') : undefined);
  await sync(a, b, { ...options, signal: stop.signal, onProgress }).catch((reason: unknown) => {
    if (reason !== 'stopped') throw reason;
  });
}

/** The kinds of Y13's operations on the memory items, skills, session and retention policy all replicas hold (updates twice as often). */
const SHARED_KINDS = [
  ...(['update', 'update', 'delete', 'purge', 'outcome', 'upsertSkill', 'deleteSkill', 'purgeSkill'] as const),
  ...(['append', 'removeTurn', 'replaceSuffix', 'retitle', 'purgeSession', 'policy', 'unpolicy'] as const),
];
/** Y13's kinds that write a version of the shared session. */
const TRANSCRIPT_KINDS: readonly string[] = ['append', 'removeTurn', 'replaceSuffix', 'retitle', 'purgeSession'];
const arbSharedOp = fc.record({ kind: fc.constantFrom(...SHARED_KINDS), item: fc.nat(2), text: words });

/** Receives into `to` a batch of `limit` of what `from` holds and `to` lacks, then the same batch again, which skips every event. */
async function receiveTwice(from: EventSourcedProvider, to: EventSourcedProvider, limit: number): Promise<void> {
  if (from === to) return;
  const batch = await from.changes(await to.vector(), { limit });
  await to.receive(batch);
  expect(await to.receive(batch), 'a batch received again').toEqual({ received: 0, skipped: batch.length, merged: 0 });
}

/** The stable order of turns by (HLC, writer): the turns of one replaced suffix share both and keep their order. */
export function byClock(turns: readonly Turn[]): Turn[] {
  return [...turns].sort((x, y) => compareHlc(x.updatedHlc, y.updatedHlc) || (x.lastWriterId < y.lastWriterId ? -1 : x.lastWriterId > y.lastWriterId ? 1 : 0));
}

/** The greatest of the versions of one record by (HLC, writer): the one whose content a merge keeps (docs/contract.md §12, "Merge"). */
export function greatest<R extends Pick<MemoryItem, 'updatedHlc' | 'lastWriterId'>>(versions: readonly R[]): R {
  return [...versions].sort((x, y) => compareHlc(y.updatedHlc, x.updatedHlc) || (y.lastWriterId < x.lastWriterId ? -1 : 1))[0]!;
}

/** What the merge rules make of the acknowledged versions of one memory item. */
function expectedItem(versions: readonly MemoryItem[], purged: boolean): Partial<MemoryItem> {
  const last = greatest(versions);
  const content = purged ? { content: ERASED, deleted: true } : { content: last.content, deleted: last.deleted };
  return { ...content, syncVersion: versions.length, updatedHlc: last.updatedHlc, lastWriterId: last.lastWriterId };
}

export const syncChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y1 a sync of disjoint work both ways converges, and run again sends nothing and writes nothing': pairs(async (a, b) => {
    await work(a, 'laptop', 'laptop');
    await work(b, 'server', 'server');
    const [aHead, bHead] = await heads([a, b]);
    expect(await sync(a, b, { batchSize: 3 })).toEqual({ toA: bHead, toB: aHead, merged: 0, batches: Math.ceil(aHead! / 3) + Math.ceil(bHead! / 3) });
    await expectConverged([a, b]);
    expect((await a.memory.getByKey('fact', { scope: ['server'] })).content).toBe('server fact, revised');
    const after = await heads([a, b]);
    expect(await sync(b, a)).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
    expect(await heads([a, b])).toEqual(after);
    // Received events keep their origin and place; each store's own carry none.
    const [replicaA, replicaB] = [await a.replicaId(), await b.replicaId()];
    const received = (await a.log.read({ stream: STATE_STREAM })).filter((event) => event.origin !== undefined);
    expect(received.map((event) => [event.origin, event.originSeq])).toEqual(Array.from({ length: bHead! }, (_, i) => [replicaB, i + 1]));
    expect((await a.changes({ [replicaA]: aHead!, [replicaB]: bHead! })).length).toBe(0);
    expect((await a.changes({}, { limit: 2 })).map((event) => [event.origin, event.originSeq])).toEqual([
      [replicaA, 1],
      [replicaA, 2],
    ]);
  }),

  'Y2 an interrupted sync (a batch limit, an abort) resumes where it stopped, with nothing lost or received twice': pairs(async (a, b) => {
    await work(a, 'laptop', 'laptop');
    await work(b, 'server', 'server');
    const [aHead, bHead] = await heads([a, b]);
    const stop = new AbortController();
    const reason = await sync(a, b, { batchSize: 2, signal: stop.signal, onProgress: ({ batches }) => batches === 2 && stop.abort('cut') }).catch(
      (e: unknown) => e,
    );
    expect(reason).toBe('cut');
    expect(await heads([a, b])).toEqual([aHead! + 4, bHead]);
    // One batch by hand, as a resumed sync would take it, then the rest.
    expect(await b.receive(await a.changes(await b.vector(), { limit: 1 }))).toEqual({ received: 1, skipped: 0, merged: 0 });
    expect(await sync(a, b, { batchSize: 5 })).toMatchObject({ toA: bHead! - 4, toB: aHead! - 1 });
    expect(await heads([a, b])).toEqual([aHead! + bHead!, aHead! + bHead!]);
    await expectConverged([a, b]);
    // A batch received again is skipped whole.
    expect(await a.receive(await b.changes({}))).toEqual({ received: 0, skipped: aHead! + bHead!, merged: 0 });
  }),

  'Y80 a sync lets the event loop turn between batches: an abort from a callback queued as it starts stops it before it ends': pairs(async (a, b) => {
    await work(a, 'laptop', 'laptop');
    const [aHead, bHead] = await heads([a, b]);
    const stop = new AbortController();
    setImmediate(() => stop.abort('turned'));
    expect(await sync(a, b, { batchSize: 2, signal: stop.signal }).catch((e: unknown) => e)).toBe('turned');
    const [, reached] = await heads([a, b]);
    expect(reached! - bHead!).toBeLessThan(aHead!);
    expect((reached! - bHead!) % 2).toBe(0);
    expect(await sync(a, b)).toMatchObject({ toB: aHead! - (reached! - bHead!) });
    await expectConverged([a, b]);
  }),

  'Y3 a forged batch (a bad digest, a replaced event, a copy of the store) is refused whole and writes nothing': pairs(async (a, b) => {
    await work(a, 'laptop', 'laptop');
    await sync(a, b);
    await b.memory.write({ content: 'server fact', scope: ['server'] });
    const before = await heads([a, b]);
    const batch = await b.changes(await a.vector());
    expect(batch.length).toBe(1);
    const edited: SyncEvent = { ...batch[0]!, payload: { ...(batch[0]!.payload as object), tampered: true } };
    await expectInvalid(() => a.receive([edited]), '0.digest');
    // Well formed, rightly digested, but not what the origin holds at that place.
    const old = (await a.changes({}, { limit: 3 }))[2]!;
    const replaced = { ...old, time: new Date(T0).toISOString() };
    const conflict = await expectError(() => a.receive([...batch, { ...replaced, digest: syncDigest(replaced) }]), SyncConflictError);
    expect([conflict.reason, conflict.code, conflict.origin, conflict.originSeq]).toEqual(['replaced', 'diverged', old.origin, 3]);
    // Events of its own origin that it never wrote come from a byte copy of it.
    const own = { ...old, originSeq: before[0]! + 7 };
    expect((await expectError(() => a.receive([{ ...own, digest: syncDigest(own) }]), SyncConflictError)).reason).toBe('copy');
    await expectInvalid(() => a.receive([batch[0]!, batch[0]!]), '1.originSeq');
    await expectInvalid(() => a.receive([{ ...batch[0]!, type: 'session.renamed' }]), '0.digest');
    const unknown = { ...batch[0]!, type: 'session.renamed' };
    await expectInvalid(() => a.receive([{ ...unknown, digest: syncDigest(unknown) }]), '0.payload');
    expect(await heads([a, b])).toEqual(before);
  }),

  'Y4 a turn appended on one store while a turn is appended and removed, or purged, on the other merges in either order of arrival: both stores hold every turn, the removed one a tombstone, numbered by the rank of its append; a turn purged on one store and removed on the other is removed once, erased':
    clockedPairs(async (a, b, [onA, onB]) => {
      const session = await sharedSession(a, b, ['first']);
      // The store that removes receives the other's turn holding the tombstone, the other receives the removal holding its turn:
      // first the removed turn ranks before the other's (its append earlier), then after it, then a purge removes one that
      // ranks after the other's, so the purge arrives at a store where that turn moved up.
      onA.advance(1_000);
      onB.advance(2_000);
      const early = await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'removed on a' });
      await a.sessions.removeLastTurn(session.id);
      await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on b' });
      await sync(a, b);
      onA.advance(1_000);
      onB.advance(3_000);
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on a' });
      const late = await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'removed on b' });
      await b.sessions.removeLastTurn(session.id);
      await sync(a, b);
      onA.advance(4_000);
      const purged = await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'the vault code is Quokka' });
      await a.purge({ id: purged.id, reason: 'request of the owner' });
      await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on b, last' });
      await sync(a, b);
      // One turn purged on one store and removed on the other.
      const shared = await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'the locker code is Wombat' });
      await sync(a, b);
      await a.purge({ id: shared.id, reason: 'request of the owner' });
      await b.sessions.removeLastTurn(session.id);
      await sync(a, b);
      for (const p of [a, b]) {
        expect(await turnLines(p, session.id), 'the live turns').toEqual(['1 first', '3 on b', '4 on a', '6 on b, last']);
        const { turns } = await p.snapshot();
        for (const [i, turn] of [early, late, purged, shared].entries()) {
          const rank = { seq: [2, 5, 7, 8][i], deleted: true, appendedHlc: turn.updatedHlc };
          const held = turns.find((candidate) => candidate.id === turn.id);
          expect(held, 'a tombstone keeps its rank').toMatchObject(rank);
        }
        expect(await storedText(p)).not.toMatch(/Quokka|Wombat/);
      }
      await expectConverged([a, b]);
    }),

  'Y5 a purge travels: the receiver erases the text from its reads and its log, also when the record arrives already erased': pairs(async (a, b) => {
    const item = await a.memory.write({ content: 'the vault code is quartzite', key: 'vault' });
    const session = await a.sessions.create({ title: 'vault talk' });
    await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'where is the vault code quartzite' });
    const gone = await a.memory.write({ content: 'deleted secret rhubarb' });
    await sync(a, b);
    const intact = await b.changes({});
    await a.memory.delete(gone.id);
    await a.purge({ id: gone.id, reason: 'request of the owner' });
    await a.purge({ id: item.id, reason: 'request of the owner' });
    const late = await a.memory.write({ content: 'late secret walrus' });
    await a.purge({ id: late.id, reason: 'request of the owner' });
    await a.purge({ matching: 'quartzite', reason: 'request of the owner' });
    // Copies from before the purge are the same events as the rewritten ones: skipped, nothing written.
    const head = await a.log.head(STATE_STREAM);
    expect(await a.receive(intact)).toEqual({ received: 0, skipped: intact.length, merged: 0 });
    expect(await a.log.head(STATE_STREAM)).toBe(head);
    await sync(a, b);
    await expectError(() => b.memory.get(item.id), NotFoundError);
    expect([...(await b.sessions.turns(session.id))]).toEqual([]);
    for (const text of ['quartzite', 'walrus', 'rhubarb', 'vault code']) expect(await storedText(b), text).not.toContain(text);
    await expectConverged([a, b]);
  }),

  'Y6 after a receive the clock is past every HLC received, so the next local write is later': skewedPairs(HOUR, async (a, b) => {
    const ahead = await a.memory.write({ content: 'from the future' });
    await sync(a, b);
    const next = await b.memory.write({ content: 'written after the sync' });
    expect(compareHlc(next.updatedHlc, ahead.updatedHlc), 'the HLC of the next write').toBeGreaterThan(0);
  }),

  'Y7 property: 2–3 replicas with disjoint random work (purges included) and random partial, repeated and interrupted pairwise syncs converge after a final exchange':
    async (env) => {
      await property(env, arbFleet, async ({ n, rounds }) => {
        const stores = [env.eventSourced(await env.open())];
        for (let i = 1; i < n; i++) stores.push(i === n - 1 ? env.closes(createInMemoryProvider()) : env.eventSourced(await env.open()));
        for (const round of rounds) {
          for (const [i, ops] of round.ops.entries()) await runReplicaOps(stores[i]!, `replica-${i}`, ops);
          for (const s of round.syncs) await syncSome(stores[s.a]!, stores[s.b]!, { batchSize: s.batchSize, stopAfter: s.stopAfter });
        }
        await expectExchanged(stores);
      });
    },

  'Y8 idempotent writes and history work for received events as for local ones': pairs(async (a, b) => {
    await work(a, 'laptop', 'laptop');
    await sync(a, b);
    const head = await b.log.head(STATE_STREAM);
    const retried = await b.memory.write({ content: 'laptop fact', key: 'fact', scope: ['laptop'], operationId: 'laptop-fact' });
    expect(retried.content).toBe('laptop fact');
    expect(await b.log.head(STATE_STREAM)).toBe(head);
    const item = await b.memory.getByKey('fact', { scope: ['laptop'] });
    expect((await b.history(item.id)).map((version) => [version.type, version.record])).toEqual(
      (await a.history(item.id)).map((version) => [version.type, version.record]),
    );
  }),

  'Y9 concurrent updates of one memory item merge into the later version by (HLC, writer) on both stores, syncVersion counting the versions held; the sync counts the merges; the loser stays in history, marked as a conflict':
    clockedPairs(async (a, b, [onA, onB]) => {
      const item = await a.memory.write({ content: 'shared fact', metadata: { by: 'a' } });
      await sync(a, b);
      // A view after a snapshot folds the merge into the parts it restores.
      for (const p of [a, b]) await p.saveSnapshot();
      onA.advance(2_000);
      onB.advance(1_000);
      await b.memory.update(item.id, { content: 'changed on b' });
      const fromA = await a.memory.update(item.id, { content: 'changed on a', metadata: { by: 'a, again' } });
      // Each store took the other's version as a merge: counted once on each side.
      expect(await sync(a, b), 'the summary').toEqual({ toA: 1, toB: 1, merged: 2, batches: 2 });
      for (const p of [a, b]) {
        expect(await p.memory.getAny(item.id), 'the merged item').toEqual({ ...fromA, syncVersion: 3 });
        const view = await p.at({ seq: await p.log.head(STATE_STREAM) });
        expect(await view.memory.getAny(item.id), 'the merged item in a view').toEqual({ ...fromA, syncVersion: 3 });
      }
      await expectConverged([a, b]);
      for (const p of [a, b])
        expect(marked(await p.history(item.id)), 'history, its loser marked').toEqual(['changed on a', 'changed on b (conflict)', 'shared fact']);
    }),

  'Y10 a delete against a concurrent update of a memory item: the later of the two wins on both stores, so a later update brings the item back and a later delete keeps it deleted':
    clockedPairs(async (a, b, [onA, onB]) => {
      const item = await a.memory.write({ content: 'shared fact' });
      await sync(a, b);
      onA.advance(1_000);
      onB.advance(2_000);
      await a.memory.delete(item.id);
      const later = await b.memory.update(item.id, { content: 'updated after the delete' });
      await sync(a, b);
      for (const p of [a, b]) expect(await p.memory.get(item.id), 'the later update wins').toEqual({ ...later, syncVersion: 3 });
      onA.advance(2_000);
      onB.advance(3_000);
      await a.memory.update(item.id, { content: 'updated before the delete' });
      const deleted = await b.memory.delete(item.id);
      await sync(a, b);
      for (const p of [a, b]) {
        await expectError(() => p.memory.get(item.id), NotFoundError);
        expect(await p.memory.getAny(item.id), 'the later delete wins').toEqual({ ...deleted, syncVersion: 5 });
      }
      await expectConverged([a, b]);
    }),

  'Y11 after a merge syncVersion counts the versions held, so a local writer holding a stale syncVersion gets a ConflictError and one holding the merged one writes on':
    pairs(async (a, b) => {
      const item = await a.memory.write({ content: 'shared fact' });
      await sync(a, b);
      const stale = await a.memory.update(item.id, { content: 'changed on a' });
      await b.memory.update(item.id, { content: 'changed on b' });
      await sync(a, b);
      await expectError(() => a.memory.update(item.id, { content: 'stale write', syncVersion: stale.syncVersion }), ConflictError);
      const next = await a.memory.update(item.id, { content: 'written on the merge', syncVersion: 3 });
      expect(next.syncVersion).toBe(4);
      await sync(a, b);
      expect(await b.memory.get(item.id)).toEqual(next);
      await expectConverged([a, b]);
    }),

  'Y12 a purge wins and stays: a memory item purged on one store and updated on the other apart is erased on both, in reads and in the stored log': pairs(
    async (a, b) => {
      const item = await a.memory.write({ content: 'the locker code is Quokka' });
      await sync(a, b);
      await b.memory.update(item.id, { content: 'the locker code is still Quokka' });
      await a.purge({ id: item.id, reason: 'request of the owner' });
      await sync(a, b);
      for (const p of [a, b]) {
        expect(await p.memory.getAny(item.id), 'the erased tombstone').toMatchObject({ content: ERASED, deleted: true, syncVersion: 3 });
        expect(await storedText(p)).not.toContain('Quokka');
      }
      await expectConverged([a, b]);
    },
  ),

  'Y13 property: 3 replicas updating, deleting and purging shared keyed memory items, upserting, deleting, purging and recording outcomes of a shared skill, appending, removing and replacing turns of a shared session, retitling and purging it, and setting and removing a retention policy apart, with random partial, repeated, duplicated and interrupted pairwise syncs, converge after a final exchange to what the merge rules make of every acknowledged version':
    async (env) => {
      await property(env, arbRounds(3, arbSharedOp, 4, 4), async (rounds) => {
        const stores = [env.eventSourced(await env.open()), env.eventSourced(await env.open()), env.closes(createInMemoryProvider())];
        const items = [];
        for (const text of ['one', 'two', 'three']) items.push(await stores[0]!.memory.write({ content: `${text} shared`, key: text }));
        const outcomes = { uses: 0, wins: 0 };
        // Content writes and outcomes go to one skill: no content write sets the counts, so they count every outcome.
        const rules = [await stores[0]!.skills.upsert({ slug: 'rules', body: 'the rules' })];
        let rulesPurges = 0;
        const titles = [await stores[0]!.sessions.create({ title: 'shared' })];
        const chat = titles[0]!;
        const turns: Turn[] = [];
        const removed = new Set<string>();
        // The turns a purge of the session named (those its store held): erased; a turn appended apart from every purge stays live.
        const purgedTurns = new Set<string>();
        let chatPurged = false;
        let transcriptVersions = 0;
        for (const other of stores.slice(1)) await sync(stores[0]!, other);
        const versions = items.map((item) => [item]);
        const purged = items.map(() => false);
        for (const round of rounds) {
          for (const [i, ops] of round.ops.entries()) {
            const p = stores[i]!;
            for (const op of ops) {
              const id = items[op.item]!.id;
              const written = async () => {
                if (op.kind === 'append') turns.push(await p.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: `${op.text} on ${i}` }));
                else if (op.kind === 'removeTurn') removed.add((await p.sessions.removeLastTurn(chat.id)).id);
                else if (op.kind === 'replaceSuffix') {
                  const last = (await p.sessions.turns(chat.id)).at(-1);
                  const added = [`${op.text} replaced on ${i}`, `${op.text} continued on ${i}`].map((content) => ({ role: 'assistant' as const, content }));
                  turns.push(...(await p.sessions.replaceSuffix(chat.id, { expected: last ? [last.id] : [], turns: added })));
                  if (last) removed.add(last.id);
                } else if (op.kind === 'retitle') titles.push(await p.sessions.update(chat.id, { title: `${op.text} on ${i}` }));
                else if (op.kind === 'purgeSession') {
                  await p.sessions.get(chat.id);
                  for (const turn of (await p.snapshot()).turns) if (turn.sessionId === chat.id) purgedTurns.add(turn.id);
                  await p.purge({ id: chat.id, reason: 'property' });
                  chatPurged = true;
                } else if (op.kind === 'policy') await p.retention.set({ record: 'memory', scope: ['elsewhere'], maxAge: `${op.item + 1}d` });
                else if (op.kind === 'unpolicy') {
                  const [policy] = await p.retention.list();
                  if (policy) await p.retention.remove(policy.id);
                } else if (op.kind === 'purgeSkill') {
                  await p.purge({ id: rules[0]!.id, reason: 'property' });
                  rulesPurges += 1;
                } else if (op.kind === 'upsertSkill') rules.push(await p.skills.upsert({ slug: 'rules', body: `${op.text} on ${i}` }));
                else if (op.kind === 'deleteSkill') rules.push(await p.skills.delete(rules[0]!.id));
                else if (op.kind === 'outcome') {
                  await p.skills.recordOutcome(rules[0]!.id, { success: op.item === 0 });
                  outcomes.uses += 1;
                  outcomes.wins += op.item === 0 ? 1 : 0;
                } else if (op.kind === 'update') versions[op.item]!.push(await p.memory.update(id, { content: `${op.text} on ${i}` }));
                else if (op.kind === 'delete') versions[op.item]!.push(await p.memory.delete(id));
                else if ((await p.memory.getAny(id)).content !== ERASED) {
                  await p.purge({ id, reason: 'property' });
                  versions[op.item]!.push(await p.memory.getAny(id));
                  purged[op.item] = true;
                }
                // Each write of the transcript or the session's fields is a version of the session.
                if (TRANSCRIPT_KINDS.includes(op.kind)) transcriptVersions += 1;
              };
              await written().catch((error: unknown) => {
                if (!(error instanceof NotFoundError)) throw error;
              });
            }
          }
          for (const s of round.syncs)
            if (s.duplicate) await receiveTwice(stores[s.a]!, stores[s.b]!, s.batchSize);
            else await syncSome(stores[s.a]!, stores[s.b]!, { batchSize: s.batchSize, stopAfter: s.stopAfter });
        }
        await expectExchanged(stores);
        const policies = await Promise.all(stores.map((s) => s.retention.list()));
        for (const list of policies.slice(1)) expect(list, 'the retention policies').toEqual(policies[0]);
        for (const [i, item] of items.entries()) {
          expect(await stores[0]!.memory.getAny(item.id), 'the merged item').toMatchObject(expectedItem(versions[i]!, purged[i]!));
        }
        const last = greatest(rules);
        // The purges the last content write's writer held: the versions it counts that are neither content writes nor outcomes.
        const skillErased = last.syncVersion - last.version - (last.outcomes?.uses ?? 0) < rulesPurges;
        expect(
          await stores[0]!.skills.getAny(rules[0]!.id),
          'the skill written apart, every outcome counted once, erased by a purge its writer did not hold',
        ).toMatchObject({
          body: skillErased ? ERASED : last.body,
          deleted: skillErased || last.deleted,
          version: rules.length,
          ...outcomes,
          syncVersion: rules.length + outcomes.uses + rulesPurges,
        });
        const { sessions, turns: held } = await stores[0]!.snapshot();
        const live = held.filter((turn) => turn.sessionId === chat.id && !turn.deleted).map((turn) => `${turn.seq} ${turn.id}`);
        const kept = byClock(turns).flatMap((turn, n) => (removed.has(turn.id) || purgedTurns.has(turn.id) ? [] : [`${n + 1} ${turn.id}`]));
        expect(live, 'every turn added and neither removed nor purged, numbered by (HLC, writer) among all added').toEqual(kept);
        const erased = held.filter((turn) => purgedTurns.has(turn.id)).every((turn) => turn.content === ERASED && turn.deleted);
        expect(erased, 'the turns a purge named').toBe(true);
        const session = sessions.find((candidate) => candidate.id === chat.id);
        expect(session, 'the session counts its versions, titled by its later field write, or erased by a purge').toMatchObject({
          syncVersion: 1 + transcriptVersions,
          title: chatPurged ? ERASED : greatest(titles).title,
          deleted: chatPurged,
        });
      });
    },

  'Y14 outcomes of one skill recorded on both stores apart all count, once each, on both; content writes apart from outcomes merge, whichever arrives first: the later content write by (HLC, writer) gives the content, and its counts gain every outcome its writer did not hold':
    clockedPairs(async (a, b, [onA, onB]) => {
      const skill = await a.skills.upsert({ slug: 'deploy', body: 'the steps' });
      await sync(a, b);
      await a.skills.recordOutcome(skill.id, { success: true });
      await a.skills.recordOutcome(skill.id, { success: false });
      await b.skills.recordOutcome(skill.id, { success: true });
      await sync(a, b);
      for (const p of [a, b]) expect(await p.skills.get(skill.id)).toMatchObject({ body: 'the steps', version: 1, uses: 3, wins: 2, syncVersion: 4 });
      await expectConverged([a, b]);
      // a sets the counts with its content write, later than b's; b's outcomes are later than both. A sync takes
      // b's versions into a, which holds a's content write, then a's into b, which holds b's outcomes: both orders.
      onA.advance(2_000);
      onB.advance(1_000);
      await a.skills.recordOutcome(skill.id, { success: true });
      const fromA = await a.skills.upsert({ slug: 'deploy', body: 'steps from a', uses: 10, wins: 5 });
      await b.skills.upsert({ slug: 'deploy', body: 'steps from b' });
      onB.advance(5_000);
      await b.skills.recordOutcome(skill.id, { success: true });
      const last = await b.skills.recordOutcome(skill.id, { success: false });
      await sync(a, b);
      const merged = { ...fromA, uses: 12, wins: 6, version: 3, syncVersion: 9, updatedHlc: last.updatedHlc, lastWriterId: last.lastWriterId };
      for (const p of [a, b]) {
        expect(await p.skills.get(skill.id), "a's content and counts, with b's outcomes").toEqual({
          ...merged,
          updatedAt: last.updatedAt,
          contentClock: { updatedHlc: fromA.updatedHlc, lastWriterId: fromA.lastWriterId },
          outcomes: { uses: 6, wins: 4 },
        });
        const versions = (await p.history(skill.id)).filter((version) => version.type !== 'skill.outcome_recorded');
        expect(marked(versions), 'history, the content write that lost marked').toEqual(['steps from a', 'steps from b (conflict)', 'the steps']);
      }
      await expectConverged([a, b]);
      // A delete apart from an outcome: the skill stays deleted, the outcome counted; a later upsert brings it back with it.
      onA.advance(10_000);
      await a.skills.delete(skill.id);
      await b.skills.recordOutcome(skill.id, { success: true });
      await sync(a, b);
      for (const p of [a, b]) expect(await p.skills.getAny(skill.id), 'deleted, the outcome counted').toMatchObject({ deleted: true, uses: 13, wins: 7 });
      await b.skills.upsert({ slug: 'deploy', body: 'steps after the delete' });
      await sync(a, b);
      for (const p of [a, b]) expect(await p.skills.get(skill.id)).toMatchObject({ body: 'steps after the delete', uses: 13, wins: 7, version: 5 });
      await expectConverged([a, b]);
    }),

  'Y15 after a merge semantic and lexical recall find a memory item by the content that won, not by the one that lost': needing(
    ['embedder', 'injectableClock'],
    (env) =>
      eachClockedPair(
        env,
        async (a, b, [onA, onB]) => {
          const item = await a.memory.write({ content: 'a shared fact' });
          await sync(a, b);
          onA.advance(2_000);
          onB.advance(1_000);
          await b.memory.update(item.id, { content: 'the sedan broke down' });
          await a.memory.update(item.id, { content: 'a kitten arrived' });
          await sync(a, b);
          for (const p of [a, b]) {
            expect(ids(await p.memory.recall({ query: 'feline', mode: 'semantic' })), 'the content that won').toEqual([item.id]);
            expect(await p.memory.recall({ query: 'vehicle', mode: 'semantic' }), 'the content that lost').toEqual([]);
            expect(await p.memory.recall({ query: 'sedan', mode: 'lexical' }), 'the words that lost').toEqual([]);
            expect(ids(await p.memory.recall({ query: 'kitten', mode: 'lexical' })), 'the words that won').toEqual([item.id]);
          }
        },
        () => ({ embedder: conceptEmbedder() }),
      ),
  ),

  'Y16 a skill upserted or deleted on both stores apart merges into the later content write by (HLC, writer) on both, version counting the content writes, the loser marked a conflict in history; a later upsert brings a deleted skill back':
    clockedPairs(async (a, b, [onA, onB]) => {
      const skill = await a.skills.upsert({ slug: 'deploy', body: 'the steps', tags: ['ops'] });
      await sync(a, b);
      onA.advance(2_000);
      onB.advance(1_000);
      await b.skills.upsert({ slug: 'deploy', body: 'steps from b' });
      const fromA = await a.skills.upsert({ slug: 'deploy', body: 'steps from a', tags: ['ops', 'a'] });
      await sync(a, b);
      for (const p of [a, b]) {
        expect(await p.skills.get(skill.id), 'the later upsert').toEqual({ ...fromA, version: 3, syncVersion: 3 });
        expect(marked(await p.history(skill.id)), 'history, its loser marked').toEqual(['steps from a', 'steps from b (conflict)', 'the steps']);
      }
      onA.advance(1_000);
      onB.advance(3_000);
      await a.skills.delete(skill.id);
      const back = await b.skills.upsert({ slug: 'deploy', body: 'steps after the delete' });
      await sync(a, b);
      for (const p of [a, b]) expect(await p.skills.get(skill.id), 'the later upsert over the delete').toEqual({ ...back, version: 5, syncVersion: 5 });
      await expectConverged([a, b]);
    }),

  'Y17 turns appended to one session on both stores apart are all kept on both, numbered by (HLC, writer, id): a turn received earlier than those held takes its rank, and the later ones move up':
    clockedPairs(async (a, b, [onA, onB]) => {
      const session = await sharedSession(a, b, ['first']);
      // A view after a snapshot folds the merge into the parts it restores.
      for (const p of [a, b]) await p.saveSnapshot();
      onA.advance(2_000);
      onB.advance(1_000);
      const onLater = await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on a' });
      await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on b' });
      await b.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'on b, again' });
      await sync(a, b);
      const transcript = ['1 first', '2 on b', '3 on b, again', '4 on a'];
      const merged = { syncVersion: 5, updatedHlc: onLater.updatedHlc, lastWriterId: onLater.lastWriterId };
      for (const p of [a, b]) {
        expect(await turnLines(p, session.id), 'every turn, in one order').toEqual(transcript);
        expect(await p.sessions.get(session.id), 'the session').toMatchObject(merged);
        const view = await p.at({ seq: await p.log.head(STATE_STREAM) });
        expect(await view.sessions.get(session.id), 'the session in a view').toMatchObject(merged);
        expect(await turnLines(view, session.id), 'in a view').toEqual(transcript);
      }
      await expectConverged([a, b]);
      await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'after the merge' });
      await sync(a, b);
      expect((await turnLines(a, session.id)).at(-1), 'a later append chains').toBe('5 after the merge');
      await expectConverged([a, b]);
    }),

  'Y18 a turn removed on one store while another is appended on the other: the removal removes the turn it names, the appended turn stays, on both': pairs(
    async (a, b) => {
      const session = await a.sessions.create({ title: 'shared' });
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'first' });
      const second = await a.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'second' });
      await sync(a, b);
      await b.sessions.removeLastTurn(session.id);
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on a' });
      await sync(a, b);
      for (const p of [a, b]) {
        expect(await turnLines(p, session.id), 'the live turns').toEqual(['1 first', '3 on a']);
        expect((await p.history(second.id)).at(-1)?.record, 'the removed turn').toMatchObject({ seq: 2, deleted: true });
        expect((await p.sessions.get(session.id)).syncVersion, 'the versions held').toBe(5);
      }
      await expectConverged([a, b]);
    },
  ),

  'Y23 a purge wins and stays: a skill purged on one store and upserted and used on the other apart, or purged on both, is an erased tombstone on both, every outcome counted once, in reads and in the stored log':
    pairs(async (a, b) => {
      const skill = await a.skills.upsert({ slug: 'unlock', body: 'the locker code is Quokka', tags: ['Wombat'] });
      await a.skills.recordOutcome(skill.id, { success: true });
      await sync(a, b);
      await b.skills.upsert({ slug: 'unlock', body: 'the locker code is still Quokka' });
      await b.skills.recordOutcome(skill.id, { success: false });
      await a.purge({ id: skill.id, reason: 'request of the owner' });
      await sync(a, b);
      // The second's upsert, later, gives the counts, with the outcome recorded after it; both content writes count.
      const tombstone = { name: ERASED, body: ERASED, tags: [], deleted: true, uses: 2, wins: 1, version: 2, outcomes: { uses: 2, wins: 1 } };
      for (const p of [a, b]) {
        expect(await p.skills.getAny(skill.id), 'the erased tombstone').toMatchObject({ ...tombstone, syncVersion: 5 });
        expect(await storedText(p)).not.toMatch(/Quokka|Wombat/);
      }
      await expectConverged([a, b]);
      await a.purge({ id: skill.id, reason: 'request of the owner' });
      await b.purge({ id: skill.id, reason: 'request of the owner' });
      await sync(a, b);
      for (const p of [a, b]) expect(await p.skills.getAny(skill.id), 'purged on both').toMatchObject({ ...tombstone, syncVersion: 7 });
      await expectConverged([a, b]);
    }),

  'W30 a sync between one replica and itself (the same store, or a byte copy of it) is refused as a copy before anything is written, either side first': pairs(
    async (a, b) => {
      await a.memory.write({ content: 'written on a' });
      await a.retention.set({ record: 'memory', memoryKind: 'scratch', maxAge: '1d' });
      await b.memory.write({ content: 'written on b' });
      // b's store under a's replica id: a byte copy of a that went on writing apart.
      const copy: SyncPeer = { ...batchByBatch(b), replicaId: () => a.replicaId() };
      const before = await Promise.all([heads([a, b]), a.retention.list(), b.retention.list()]);
      const id = await a.replicaId();
      for (const [x, y] of [
        [a, a],
        [a, copy],
        [copy, a],
      ] as const) {
        const refused = await expectError(() => sync(x, y), SyncConflictError);
        expect([refused.reason, refused.code, refused.origin]).toEqual(['copy', 'diverged', id]);
        expect(refused.message).toMatch(/the same store, or a byte copy of it.*nothing was received$/);
      }
      expect(await Promise.all([heads([a, b]), a.retention.list(), b.retention.list()]), 'nothing written: no event, no policy').toEqual(before);
    },
  ),
});

// Y19–Y26 (sync-fields.ts) and Y30–Y39 (sync-scope.ts) run on the same pairs, with the same work.
export { arbReplicaOp, expectConverged, runReplicaOps };
