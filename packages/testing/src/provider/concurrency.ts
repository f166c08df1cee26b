/** A26 and B38: concurrent writers, kept fields and atomic outcomes. */
import type { Skill } from '@agentstate/core';
import { expect } from 'vitest';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, fresh } from '../suite/harness.js';

const SLUGS = Array.from({ length: 10 }, (_, i) => `s${i}`);

/** A read taken mid-flight must still be a consistent list. */
function expectConsistent(skills: Skill[]): void {
  expect(skills.length).toBeLessThanOrEqual(10);
  expect(new Set(skills.map((s) => s.id)).size).toBe(skills.length);
  const slugs = skills.map((s) => s.slug);
  expect(slugs).toEqual([...slugs].sort());
  for (const slug of slugs) expect(SLUGS).toContain(slug);
}

export const concurrencyChecks: ProviderCheck[] = checks([], {
  'A26 50 concurrent tasks upserting s0…s9 while searching and listing leave exactly 10 skills': fresh(async (p) => {
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const [skill, found, listed] = await Promise.all([
          p.skills.upsert({ slug: `s${i % 10}`, name: `Skill ${i % 10}`, body: `body ${i}` }),
          p.skills.search('s', 0),
          p.skills.list(),
        ]);
        expectConsistent(found);
        expectConsistent(listed);
        return skill;
      }),
    );
    const final = await p.skills.list();
    expect(final.map((s) => s.slug)).toEqual(SLUGS);
    for (const s of final) expect(s).toMatchObject({ version: 5, syncVersion: 5, deleted: false });
    // Every upsert saw the one before it: each slug went through versions 1…5.
    for (const slug of SLUGS) {
      const versions = results.filter((s) => s.slug === slug).map((s) => s.version);
      versions.sort((a, b) => a - b);
      expect(versions, slug).toEqual([1, 2, 3, 4, 5]);
      expect(new Set(results.filter((s) => s.slug === slug).map((s) => s.id)).size, slug).toBe(1);
    }
    expect(await p.skills.search('s', 0)).toEqual(final);
  }),
  'B38 upsert keeps omitted fields; 100 concurrent recordOutcome calls add exactly 100 uses': fresh(async (p) => {
    const created = await p.skills.upsert({
      slug: 'deploy',
      name: 'Deploy',
      body: 'ship it',
      tags: ['ops', 'ci'],
      check: 'npm test',
      uses: 3,
      wins: 2,
      scope: ['project:alpha'],
    });
    const kept = { name: 'Deploy', tags: ['ops', 'ci'], check: 'npm test', uses: 3, wins: 2, scope: created.scope };
    const bodyOnly = await p.skills.upsert({ slug: 'deploy', body: 'ship faster', scope: ['project:alpha'] });
    expect(bodyOnly).toMatchObject({ ...kept, body: 'ship faster', version: 2, id: created.id });
    const nameOnly = await p.skills.upsert({ slug: 'deploy', name: 'Deploy!', scope: ['project:alpha'] });
    expect(nameOnly).toMatchObject({ ...kept, name: 'Deploy!', body: 'ship faster', version: 3 });

    const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => p.skills.recordOutcome(created.id, { success: i % 3 === 0 })));
    const wins = Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 3 === 0).length;
    const final = await p.skills.get(created.id);
    expect(final).toMatchObject({ uses: 103, wins: 2 + wins, version: 3, syncVersion: nameOnly.syncVersion + 100 });
    expect(final).toMatchObject({ name: 'Deploy!', body: 'ship faster', tags: ['ops', 'ci'], check: 'npm test' });
    // Each outcome saw the one before it: their `uses` are exactly 4…103.
    expect(outcomes.map((s) => s.uses).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 4));
    expect(new Set(outcomes.map((s) => s.syncVersion)).size).toBe(100);
  }),
});
