/** X12–X13: property-based checks against the in-memory provider and core's lexical matcher (docs/contract.md §5, §9). */
import { LIMITS, type MemoryItem, type Skill } from '@agentstate/core';
import { compareMemoryNewestFirst, compareSkillsBySlug, matchesText, skillSearchText } from '@agentstate/core/backend';
import fc from 'fast-check';
import { expect } from 'vitest';
import { arbOperations, runOperations } from '../arbitraries/operations.js';
import { arbQuery, arbText } from '../arbitraries/text.js';
import { checks, needing, property, type ProviderCheck } from '../suite/harness.js';
import { ids } from '../suite/fixtures.js';
import { expectSameAs, pair } from '../suite/reference.js';

export const propertyChecks: ProviderCheck[] = checks([], {
  'X12 random operation sequences give the same outcomes, events and snapshot bytes as the in-memory reference': needing(
    ['deterministic', 'injectableClock'],
    (env) =>
      property(env, arbOperations({ maxLength: 25 }), async (operations) => {
        const { subject, reference, subjectClock, referenceClock } = await pair(env);
        expect(await runOperations(subject, operations, { clock: subjectClock })).toEqual(
          await runOperations(reference, operations, { clock: referenceClock }),
        );
        await expectSameAs(subject, reference);
      }),
  ),
  'X13 skills.search and memory.recall agree with the reference lexical matcher on generated texts and queries': (env) => {
    const inputs = fc.tuple(fc.array(arbText(), { minLength: 1, maxLength: 6 }), fc.array(arbQuery(), { minLength: 1, maxLength: 6 }));
    return property(env, inputs, async ([texts, queries]) => {
      const p = await env.open();
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
    });
  },
});
