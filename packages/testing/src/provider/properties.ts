/**
 * X12–X13: property-based checks. The in-memory provider and core's lexical
 * matcher are the references every backend must agree with (docs/contract.md §5, §9).
 */
import type { MemoryItem, Skill } from '@agentstate/core';
import { createInMemoryProvider, LIMITS, ManualClock, seededEntropy, STATE_STREAM } from '@agentstate/core';
import { compareMemoryNewestFirst, compareSkillsBySlug, matchesText, skillSearchText } from '@agentstate/core/backend';
import fc from 'fast-check';
import { expect } from 'vitest';
import { arbOperations, runOperations } from '../arbitraries/operations.js';
import { arbQuery, arbText } from '../arbitraries/text.js';
import { snapshotText, T0 } from '../suite/fixtures.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, isEventSourced } from '../suite/harness.js';

const ids = (records: Array<{ id: string }>): string[] => records.map((r) => r.id);

export const propertyChecks: ProviderCheck[] = [
  ...checks(['deterministic', 'injectableClock'], {
    'X12 random operation sequences give the same outcomes, events and snapshot bytes as the in-memory reference': async (env) => {
      await fc.assert(
        fc.asyncProperty(arbOperations({ maxLength: 25 }), async (operations) => {
          const options = (clock: ManualClock) => ({ clock, entropy: seededEntropy(12), instanceId: 'instance-x12' });
          const subjectClock = new ManualClock(T0);
          const referenceClock = new ManualClock(T0);
          const subject = await env.open(options(subjectClock));
          const reference = createInMemoryProvider(options(referenceClock));
          try {
            const got = await runOperations(subject, operations, { clock: subjectClock });
            const want = await runOperations(reference, operations, { clock: referenceClock });
            expect(got).toEqual(want);
            if (env.caps.eventSourced && isEventSourced(subject)) {
              expect(await subject.log.read({ stream: STATE_STREAM })).toEqual(await reference.log.read({ stream: STATE_STREAM }));
              expect(await snapshotText(subject)).toBe(await snapshotText(reference));
            }
          } finally {
            await reference.close();
            await env.release(subject);
          }
        }),
        { numRuns: env.propertyRuns, seed: env.seed },
      );
    },
  }),
  ...checks([], {
    'X13 skills.search and memory.recall agree with the reference lexical matcher on generated texts and queries': async (env) => {
      await fc.assert(
        fc.asyncProperty(fc.array(arbText(), { minLength: 1, maxLength: 6 }), fc.array(arbQuery(), { minLength: 1, maxLength: 6 }), async (texts, queries) => {
          const p = await env.open();
          try {
            const skills: Skill[] = [];
            const items: MemoryItem[] = [];
            for (const [i, text] of texts.entries()) {
              skills.push(await p.skills.upsert({ slug: `t${i}`, body: text }));
              items.push(await p.memory.write({ content: text }));
            }
            for (const query of queries) {
              const label = JSON.stringify(query);
              const wantSkills = skills.filter((s) => matchesText(query, skillSearchText(s))).sort(compareSkillsBySlug);
              expect(ids(await p.skills.search(query, 0)), `skills.search ${label}`).toEqual(ids(wantSkills));
              const wantItems = items.filter((m) => matchesText(query, m.content)).sort(compareMemoryNewestFirst);
              expect(ids(await p.memory.recall({ query, limit: LIMITS.pageSize })), `memory.recall ${label}`).toEqual(ids(wantItems));
            }
          } finally {
            await env.release(p);
          }
        }),
        { numRuns: env.propertyRuns, seed: env.seed },
      );
    },
  }),
];
