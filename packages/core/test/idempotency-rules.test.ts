/**
 * Property tests of the two fold rules of idempotent writes and outcome
 * events: an operation id is used by one event only (the fold refuses the
 * first reuse, naming its seq, and changes nothing), and a
 * `skill.outcome_recorded` post-image adds exactly its increment and changes
 * nothing but the envelope and `updatedAt`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Skill, StateChange } from '@agentstate/core';
import { CorruptionError, encodeSnapshot, EventTypes, ManualClock, operationInputHash, seededEntropy, UuidV7Generator } from '@agentstate/core';
import { InMemoryState } from '@agentstate/core/backend';
import { HybridLogicalClock } from '../src/time/hlc.js';
import { Stamper } from '../src/write/stamper.js';

function stamper(seed: number): Stamper {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  return new Stamper({ instanceId: 'live', clock, hlc: new HybridLogicalClock(clock), ids: new UuidV7Generator(clock, seededEntropy(seed)) });
}

const withOperation = (change: StateChange, id: string | undefined): StateChange =>
  id === undefined ? change : ({ ...change, payload: { ...change.payload, operation: { id, inputHash: operationInputHash('m', id) } } } as StateChange);

describe('the operation rule', () => {
  it('folds a log until the first event that reuses an operation id, refuses that one naming its seq, and keeps the state before it', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }), { minLength: 1, maxLength: 8 }), fc.nat(), (ids, seed) => {
        const s = stamper(seed);
        const state = new InMemoryState();
        const firstReuse = ids.findIndex((id, i) => id !== undefined && ids.indexOf(id) < i);
        for (const [i, id] of ids.entries()) {
          const change = withOperation(s.writeMemory({ content: `item ${i}` }, undefined, undefined), id);
          if (i === firstReuse) {
            const before = encodeSnapshot(state.capture());
            expect(() => state.apply(change, i + 1)).toThrow(
              new CorruptionError(
                'state',
                i + 1,
                `memory.written: operation id ${JSON.stringify(id)} was already used by the event at seq ${ids.indexOf(id!) + 1}`,
              ),
            );
            expect(encodeSnapshot(state.capture())).toBe(before);
            return;
          }
          state.apply(change, i + 1);
          if (id !== undefined) expect(state.operation(id)).toEqual({ id, inputHash: operationInputHash('m', id), seq: i + 1 });
        }
        expect(firstReuse).toBe(-1);
        expect(state.operations.size).toBe(new Set(ids.filter((id) => id !== undefined)).size);
      }),
    );
  });
});

describe('operations without a hash', () => {
  it('index the first event naming an id (a hash a purge dropped) and leave later ones (a batch) out; a hash on a known id is still refused', () => {
    // Each event names an id (or none), with or without a hash.
    const arbEvent = fc.record({ id: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }), hashed: fc.boolean() });
    fc.assert(
      fc.property(fc.array(arbEvent, { minLength: 1, maxLength: 10 }), fc.nat(), (events, seed) => {
        const s = stamper(seed);
        const state = new InMemoryState();
        const first = new Map<string, { seq: number; hashed: boolean }>();
        for (const [i, { id, hashed }] of events.entries()) {
          const memory = s.writeMemory({ content: `item ${i}` }, undefined, undefined);
          const change =
            id === undefined
              ? memory
              : ({ ...memory, payload: { ...memory.payload, operation: hashed ? { id, inputHash: operationInputHash('m', id) } : { id } } } as StateChange);
          if (id !== undefined && hashed && first.has(id)) {
            expect(() => state.apply(change, i + 1)).toThrow(CorruptionError);
            return;
          }
          state.apply(change, i + 1);
          if (id !== undefined && !first.has(id)) first.set(id, { seq: i + 1, hashed });
        }
        for (const [id, { seq, hashed }] of first) {
          expect(state.operation(id)).toEqual(hashed ? { id, inputHash: operationInputHash('m', id), seq } : { id, seq });
        }
        expect(state.operations.size).toBe(first.size);
      }),
    );
  });
});

/** Edits of an outcome's post-image or increment, none of which the stamper produces. */
const TAMPERS: Record<string, (skill: Skill, inc: { uses: 1; wins: 0 | 1 }) => [Skill, { uses: number; wins: number }]> = {
  'one more use': (s, i) => [{ ...s, uses: s.uses + 1 }, i],
  'one less use': (s, i) => [{ ...s, uses: s.uses - 1 }, i],
  'wins off by one': (s, i) => [{ ...s, wins: s.wins + (i.wins === 1 ? -1 : 1) }, i],
  'increment says otherwise': (s, i) => [s, { ...i, wins: 1 - i.wins }],
  'name changed': (s, i) => [{ ...s, name: `${s.name}!` }, i],
  'body changed': (s, i) => [{ ...s, body: `${s.body}!` }, i],
  'tags changed': (s, i) => [{ ...s, tags: [...s.tags, 'extra'] }, i],
  'check changed': (s, i) => [{ ...s, check: `${s.check}!` }, i],
  'version bumped': (s, i) => [{ ...s, version: s.version + 1 }, i],
  'slug changed': (s, i) => [{ ...s, slug: `${s.slug}-x` }, i],
  'scope changed': (s, i) => [{ ...s, scope: [...s.scope, 'x'] }, i],
  'createdAt changed': (s, i) => [{ ...s, createdAt: '2020-01-01T00:00:00.000Z' }, i],
  'updatedAt moved back': (s, i) => [{ ...s, updatedAt: '2020-01-01T00:00:00.000Z' }, i],
  'syncVersion skipped': (s, i) => [{ ...s, syncVersion: s.syncVersion + 1 }, i],
  tombstone: (s, i) => [{ ...s, deleted: true }, i],
};

describe('the outcome rule', () => {
  const skillInput = fc.record({
    slug: fc.constantFrom('deploy', 'review', 'triage'),
    name: fc.string({ maxLength: 8 }),
    body: fc.string({ maxLength: 20 }),
    tags: fc.array(fc.constantFrom('ops', 'ci', 'web'), { maxLength: 3 }),
    uses: fc.nat({ max: 50 }),
    winShare: fc.double({ min: 0, max: 1, noNaN: true }),
  });

  it('accepts every outcome the stamper records and refuses any other edit of the post-image or increment', () => {
    fc.assert(
      fc.property(skillInput, fc.boolean(), fc.constantFrom(...Object.keys(TAMPERS)), fc.nat(), (input, success, tamper, seed) => {
        const s = stamper(seed);
        const { winShare, ...rest } = input;
        const created = s.upsertSkill({ ...rest, wins: Math.floor(input.uses * winShare), scope: ['p'] }, undefined, undefined);
        const state = new InMemoryState();
        state.apply(created, 1);
        const outcome = s.recordOutcome(created.payload.skill, success);
        expect(outcome.payload.skill).toMatchObject({ uses: input.uses + 1, version: created.payload.skill.version });

        const [skill, increment] = TAMPERS[tamper]!(outcome.payload.skill, outcome.payload.increment);
        const forged = { type: EventTypes.SkillOutcomeRecorded, payload: { skill, increment } } as StateChange;
        expect(() => state.apply(forged, 2), tamper).toThrow(CorruptionError);
        state.apply(outcome, 2);
        expect(state.skill(skill.id)).toEqual(outcome.payload.skill);
      }),
    );
  });

  it('refuses an outcome for a missing or deleted skill', () => {
    const s = stamper(1);
    const created = s.upsertSkill({ slug: 'deploy' }, undefined, undefined);
    const outcome = s.recordOutcome(created.payload.skill, true);
    expect(() => new InMemoryState().apply(outcome, 1)).toThrow('skill.outcome_recorded: skill');
    const state = new InMemoryState();
    state.apply(created, 1);
    const tombstone = s.deleteSkill(created.payload.skill);
    state.apply(tombstone, 2);
    expect(() => state.apply(s.recordOutcome(tombstone.payload.skill, true), 3)).toThrow('does not exist or is deleted');
  });
});
