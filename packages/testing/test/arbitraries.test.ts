/** The arbitraries produce what they promise, imported through `@agentstate/testing/arbitraries`. */
import {
  appendTurnInputSchema,
  createInMemoryProvider,
  createSessionInputSchema,
  isAgentStateError,
  ManualClock,
  memoryItemSchema,
  recallOptionsSchema,
  seededEntropy,
  sessionSchema,
  skillSchema,
  turnSchema,
  updateSessionInputSchema,
  upsertSkillInputSchema,
  ValidationError,
  writeMemoryInputSchema,
  tokenize,
} from '@agentstate/core';
import { matchesText } from '@agentstate/core/backend';
import {
  arbAppendTurnInput,
  arbCreateSessionInput,
  arbInvalidText,
  arbMemoryItem,
  arbOperations,
  arbPunctuation,
  arbQuery,
  arbRecallOptions,
  arbSession,
  arbSkill,
  arbText,
  arbTurn,
  arbUnicodeText,
  arbUpdateSessionInput,
  arbUpsertSkillInput,
  arbWriteMemoryInput,
  runOperations,
} from '@agentstate/testing/arbitraries';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('record arbitraries', () => {
  it('produce records that pass the core record schemas', () => {
    fc.assert(fc.property(arbSession(), (s) => sessionSchema.safeParse(s).success && s.createdAt <= s.updatedAt));
    fc.assert(fc.property(arbTurn(), (t) => turnSchema.safeParse(t).success));
    fc.assert(fc.property(arbTurn('session-1'), (t) => t.sessionId === 'session-1'));
    fc.assert(fc.property(arbSkill(), (s) => skillSchema.safeParse(s).success && s.wins <= s.uses && Array.isArray(s.tags)));
    fc.assert(fc.property(arbMemoryItem(), (m) => memoryItemSchema.safeParse(m).success));
  });
});

describe('input arbitraries', () => {
  it('produce inputs the core input schemas accept', () => {
    fc.assert(fc.property(arbCreateSessionInput(), (i) => createSessionInputSchema.safeParse(i).success));
    fc.assert(fc.property(arbAppendTurnInput('s'), (i) => appendTurnInputSchema.safeParse(i).success));
    fc.assert(fc.property(arbUpsertSkillInput(), (i) => upsertSkillInputSchema.safeParse(i).success));
    fc.assert(fc.property(arbUpdateSessionInput(), (i) => updateSessionInputSchema.safeParse(i).success));
    fc.assert(fc.property(arbWriteMemoryInput(), (i) => writeMemoryInputSchema.safeParse(i).success));
    fc.assert(fc.property(arbRecallOptions(), (o) => recallOptionsSchema.safeParse(o).success));
  });

  it('produce invalid text that every store refuses', async () => {
    const p = createInMemoryProvider();
    await fc.assert(
      fc.asyncProperty(arbInvalidText(), async (bad) => {
        await expect(p.sessions.create({ title: bad })).rejects.toBeInstanceOf(ValidationError);
        await expect(p.memory.write({ content: 'c', kind: bad })).rejects.toBeInstanceOf(ValidationError);
      }),
      { numRuns: 30 },
    );
  });
});

describe('text arbitraries', () => {
  it('never contain NUL and always have tokens where promised', () => {
    fc.assert(fc.property(arbText(), (t) => !t.includes('\u0000') && t.trim().length > 0));
    fc.assert(fc.property(arbUnicodeText(), (t) => !t.includes('\u0000')));
  });

  it('make punctuation that has no tokens and so matches nothing', () => {
    fc.assert(fc.property(arbPunctuation(), (p) => tokenize(p).length === 0 && !matchesText(p, 'anything at all')));
  });

  it('make queries of every kind: empty, matching, punctuation only', () => {
    const queries = fc.sample(arbQuery(), { numRuns: 500, seed: 1 });
    expect(queries).toContain('');
    expect(queries.some((q) => q !== '' && tokenize(q).length === 0)).toBe(true);
    expect(queries.some((q) => tokenize(q).length >= 2)).toBe(true);
    expect(queries.some((q) => /[Ѐ-ӿͰ-Ͽ]|\P{ASCII}/u.test(q))).toBe(true);
  });
});

describe('operation sequences', () => {
  it('run to outcomes that mix successes and typed errors, and never throw anything else', async () => {
    let ok = 0;
    let failed = 0;
    await fc.assert(
      fc.asyncProperty(arbOperations({ maxLength: 40 }), async (ops) => {
        const clock = new ManualClock();
        const outcomes = await runOperations(createInMemoryProvider({ clock }), ops, { clock });
        expect(outcomes).toHaveLength(ops.length);
        for (const o of outcomes) {
          if (o.ok) ok += 1;
          else {
            failed += 1;
            expect(['not_found', 'conflict', 'invalid']).toContain(o.code);
          }
        }
      }),
      { numRuns: 50, seed: 7 },
    );
    expect(ok).toBeGreaterThan(failed);
    expect(failed).toBeGreaterThan(0);
  });

  it('are deterministic under a manual clock and seeded entropy', async () => {
    await fc.assert(
      fc.asyncProperty(arbOperations(), async (ops) => {
        const run = async () => {
          const clock = new ManualClock();
          const p = createInMemoryProvider({ clock, entropy: seededEntropy(3), instanceId: 'i' });
          const outcomes = await runOperations(p, ops, { clock });
          return { outcomes, events: await p.log.read({ stream: 'state' }) };
        };
        expect(await run()).toEqual(await run());
      }),
      { numRuns: 30 },
    );
  });

  it('rethrow errors that are not typed store errors', async () => {
    const p = createInMemoryProvider();
    const broken = { ...p, sessions: { ...p.sessions, create: async () => Promise.reject(new TypeError('boom')) } };
    await expect(runOperations(broken, [{ kind: 'createSession', input: {} }])).rejects.toThrow('boom');
    expect(isAgentStateError(new TypeError('boom'))).toBe(false);
  });
});
