/**
 * A skill's content writes and outcomes written on stores apart merge (docs/contract.md §12, "Merge"): whatever
 * the order the versions arrive in, every store holds one skill, whose content is the later content write's by
 * (HLC, writer) and whose counts are that write's plus every outcome its writer did not hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareHlc, createInMemoryProvider, ERASED, type EventSourcedProvider, ManualClock, NotFoundError, replay, type Skill, sync } from '../src/index.js';

type Op =
  | { kind: 'upsert'; body: string; counts: { uses: number; wins: number } | null }
  | { kind: 'delete' }
  | { kind: 'outcome'; success: boolean }
  | { kind: 'purge' }
  | { kind: 'advance'; ms: number };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('upsert' as const),
    body: fc.constantFrom('alpha', 'beta'),
    counts: fc.option(fc.nat(5).chain((uses) => fc.record({ uses: fc.constant(uses), wins: fc.nat(uses) }))),
  }),
  fc.record({ kind: fc.constant('delete' as const) }),
  fc.record({ kind: fc.constant('outcome' as const), success: fc.boolean() }),
  fc.record({ kind: fc.constant('purge' as const) }),
  // Clocks that move apart, so a content write is now earlier, now later than the outcomes written apart from it.
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 3_000 }) }),
);

const arbRounds = fc.array(
  fc.record({
    ops: fc.array(fc.array(arbOp, { maxLength: 4 }), { minLength: 3, maxLength: 3 }),
    syncs: fc.array(fc.tuple(fc.nat(2), fc.nat(2)), { maxLength: 3 }),
  }),
  { minLength: 1, maxLength: 3 },
);

/** A content write the test saw acknowledged, with the outcomes and purges its store held when it was written. */
type ContentWrite = { skill: Skill; held: ReadonlySet<number>; purges: ReadonlySet<number> };

/** The content write that wins: the greatest by (HLC, writer). */
function latest(writes: readonly ContentWrite[]): ContentWrite {
  const order = (x: Skill, y: Skill) =>
    compareHlc(x.updatedHlc, y.updatedHlc) || (x.lastWriterId < y.lastWriterId ? -1 : x.lastWriterId > y.lastWriterId ? 1 : 0);
  return writes.reduce((best, write) => (order(write.skill, best.skill) > 0 ? write : best));
}

describe('a skill written on stores apart', () => {
  it('merges into one skill whatever order its versions arrive in: the later content write, with every outcome its writer did not hold, erased by every purge its writer did not hold', async () => {
    await fc.assert(
      fc.asyncProperty(arbRounds, async (rounds) => {
        const clocks = [0, 1, 2].map(() => new ManualClock(Date.UTC(2026, 0, 1)));
        const stores: EventSourcedProvider[] = clocks.map((clock) => createInMemoryProvider({ clock }));
        const created = await stores[0]!.skills.upsert({ slug: 'deploy', body: 'the steps' });
        for (const other of stores.slice(1)) await sync(stores[0]!, other);
        // What each store holds of the outcomes and purges (by the test's own numbering), and each outcome's increment.
        const held: Set<number>[] = stores.map(() => new Set());
        const purgesHeld: Set<number>[] = stores.map(() => new Set());
        const outcomes: { uses: number; wins: number }[] = [];
        let purges = 0;
        const writes: ContentWrite[] = [{ skill: created, held: new Set(), purges: new Set() }];
        for (const round of rounds) {
          for (const [i, ops] of round.ops.entries()) {
            const p = stores[i]!;
            for (const op of ops) {
              try {
                if (op.kind === 'advance') clocks[i]!.advance(op.ms);
                else if (op.kind === 'purge') {
                  await p.purge({ id: created.id, reason: 'property' });
                  purgesHeld[i]!.add(purges++);
                } else if (op.kind === 'outcome') {
                  await p.skills.recordOutcome(created.id, { success: op.success });
                  held[i]!.add(outcomes.push({ uses: 1, wins: op.success ? 1 : 0 }) - 1);
                } else {
                  // An upsert after a purge brings the skill back, as over any tombstone.
                  const skill =
                    op.kind === 'delete' ? await p.skills.delete(created.id) : await p.skills.upsert({ slug: 'deploy', body: op.body, ...op.counts });
                  writes.push({ skill, held: new Set(held[i]), purges: new Set(purgesHeld[i]) });
                }
              } catch (error) {
                // An outcome or a delete of a skill deleted here.
                if (!(error instanceof NotFoundError)) throw error;
              }
            }
          }
          for (const [x, y] of round.syncs) {
            if (x === y) continue;
            await sync(stores[x]!, stores[y]!);
            for (const sets of [held, purgesHeld]) {
              const both = [...sets[x]!, ...sets[y]!];
              sets[x] = new Set(both);
              sets[y] = new Set(both);
            }
          }
        }
        for (const other of stores.slice(1)) await sync(stores[0]!, other);
        for (const other of stores.slice(1)) await sync(stores[0]!, other);

        const merged = await Promise.all(stores.map((p) => p.skills.getAny(created.id)));
        for (const skill of merged.slice(1)) expect(skill, 'every store holds one skill').toStrictEqual(merged[0]);
        for (const p of stores) expect(await (await replay(p.log)).skills.getAny(created.id), 'a replay of each log').toStrictEqual(merged[0]);
        const winner = latest(writes);
        const apart = outcomes.filter((_, n) => !winner.held.has(n));
        // A purge wins over every content write its writer held and every one written apart from it: only a write after it stays.
        const erased = winner.purges.size < purges;
        expect(merged[0]).toMatchObject({
          body: erased ? ERASED : winner.skill.body,
          deleted: erased || winner.skill.deleted,
          uses: winner.skill.uses + apart.length,
          wins: winner.skill.wins + apart.filter((outcome) => outcome.wins === 1).length,
          version: writes.length,
          syncVersion: writes.length + outcomes.length + purges,
        });
      }),
      { numRuns: 40 },
    );
  });
});
