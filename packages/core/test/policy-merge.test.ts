/** Retention policies merge as a last-writer-wins map (docs/contract.md §12): any order, any repeats, one result. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInMemoryProvider, type PolicyChange, RETENTION_STREAM } from '../src/index.js';
import { comparePolicyChanges, policyId } from '../src/provider/retention-policies.js';

const arbChange: fc.Arbitrary<PolicyChange> = fc
  .record({
    id: fc.constantFrom('scratch', 'drafts'),
    remove: fc.boolean(),
    // Few values, so equal HLCs and equal origins are common.
    hlc: fc.record({ wall: fc.nat(2), counter: fc.nat(1) }),
    origin: fc.constantFrom('replica-1', 'replica-2'),
    maxAgeMs: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ id, remove, hlc, origin, maxAgeMs }) =>
    remove
      ? { type: 'retention.policy_removed', payload: { id, hlc, origin } }
      : {
          type: 'retention.policy_set',
          payload: {
            policy: { id, scope: [], record: 'memory', memoryKind: null, maxAgeMs, action: 'tombstone', setAt: '2026-01-01T00:00:00.000Z' },
            hlc,
            origin,
          },
        },
  );

/** Per policy id, the greatest change: what every store must end up holding. */
function winners(changes: readonly PolicyChange[]): PolicyChange[] {
  const best = new Map<string, PolicyChange>();
  for (const change of changes) {
    const held = best.get(policyId(change));
    if (held === undefined || comparePolicyChanges(change, held) > 0) best.set(policyId(change), change);
  }
  return [...best.values()].sort((a, b) => policyId(a).localeCompare(policyId(b)));
}

describe('retention policy merge', () => {
  it('orders two different changes of one policy one way, whichever is asked first', () => {
    fc.assert(
      fc.property(arbChange, arbChange, (a, b) => {
        expect(Math.sign(comparePolicyChanges(a, b)) + Math.sign(comparePolicyChanges(b, a))).toBe(0);
        expect(comparePolicyChanges(a, b) === 0).toBe(JSON.stringify(a) === JSON.stringify(b));
      }),
    );
  });

  it('leaves stores that took the same changes, in any batches, order and repeats, with the same policies: the greatest change of each, however they lie in the stream', async () => {
    const arbCase = fc.array(arbChange, { maxLength: 8 }).chain((changes) =>
      fc.record({
        changes: fc.constant(changes),
        shuffled: fc.shuffledSubarray(changes, { minLength: changes.length, maxLength: changes.length }),
        repeats: fc.subarray(changes),
      }),
    );
    await fc.assert(
      fc.asyncProperty(arbCase, async ({ changes, shuffled, repeats }) => {
        const [one, two, three] = [createInMemoryProvider(), createInMemoryProvider(), createInMemoryProvider()];
        try {
          await one.retention.merge(changes);
          for (const change of [...shuffled, ...repeats]) await two.retention.merge([change]);
          // As two writers on one store may leave them: in any order, older after newer.
          for (const { type, payload } of shuffled) await three.log.append({ stream: RETENTION_STREAM, type, payload });
          const expected = winners(changes);
          for (const store of [one, two, three]) expect((await store.retention.merge([])).changes).toEqual(expected);
          expect(await two.retention.list()).toEqual(await one.retention.list());
        } finally {
          await Promise.all([one.close(), two.close(), three.close()]);
        }
      }),
    );
  });
});
