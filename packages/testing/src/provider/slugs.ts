/** B41 the slug alphabet, B42 a skill named by slug without a scope (docs/contract.md §4). */
import { LIMITS, NotFoundError, SkillScopeRequiredError, SLUG_RULE, ValidationError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, fresh } from '../suite/harness.js';
import { observe } from './validation.js';

/** Slugs outside the alphabet, each for a different reason. */
const REFUSED = ['Bad Slug!', 'a b', 'x\t', '\u{1F600}', 's'.repeat(LIMITS.slug + 1), ...'../.. a/b Deploy -x x- .x x. a--b a..b a-_b café'.split(' ')];

/** Slugs inside it, at its edges. */
const ACCEPTED = ['a', '0', 'fix-esm', 'db.migrate_v2', 'a-b_c.d', '2026-01-01', 's'.repeat(LIMITS.slug)];

export const slugChecks: ProviderCheck[] = checks([], {
  'B41 a slug outside the slug alphabet is a ValidationError on slug stating the rule, and writes nothing': fresh(async (p, env) => {
    await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
    const before = await observe(env, p);
    for (const slug of REFUSED) {
      const error = await expectError(() => p.skills.upsert({ slug, body: 'b' }), ValidationError, JSON.stringify(slug));
      expect(error.field, JSON.stringify(slug)).toBe('slug');
      if (slug.length <= LIMITS.slug) expect(error.message, JSON.stringify(slug)).toContain(SLUG_RULE);
      expect(await observe(env, p), `${JSON.stringify(slug)}: state changed`).toBe(before);
    }
    for (const slug of ACCEPTED) expect((await p.skills.upsert({ slug, body: 'b' })).slug).toBe(slug);
  }),
  'B42 a slug without a scope names the global skill only; live only in other scopes it is refused naming them, writing nothing': fresh(async (p, env) => {
    const global = await p.skills.upsert({ slug: 'deploy', body: 'global' });
    const inP = await p.skills.upsert({ slug: 'deploy', body: 'p', scope: ['project:p'] });

    // With the global skill live, no scope means it, and only it.
    expect((await p.skills.recordOutcome('deploy', { success: true })).id).toBe(global.id);
    expect((await p.skills.get('deploy')).id).toBe(global.id);
    expect((await p.skills.delete('deploy')).id).toBe(global.id);
    expect(await p.skills.get('deploy', { scope: ['project:p'] })).toEqual(inP);

    // Gone from the global scope: every unscoped call refuses, naming the scopes, and writes nothing.
    const inQ = await p.skills.upsert({ slug: 'deploy', body: 'q', scope: ['project:q'] });
    const before = await observe(env, p);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['delete', () => p.skills.delete('deploy')],
      ['recordOutcome', () => p.skills.recordOutcome('deploy', { success: false })],
      ['get', () => p.skills.get('deploy')],
    ];
    for (const [label, call] of calls) {
      const error = await expectError(call, SkillScopeRequiredError, label);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.scopes, label).toEqual([inP.scope, inQ.scope]);
      expect(error.message, label).toMatch(/project:p, project:q/);
      expect(await observe(env, p), `${label}: state changed`).toBe(before);
    }
    expect(await p.skills.get('deploy', { scope: ['project:p'] })).toEqual(inP);
    expect(await p.skills.get('deploy', { scope: ['project:q'] })).toEqual(inQ);

    // A scope, or an id, still names the others; a slug live nowhere is a plain NotFoundError.
    expect((await p.skills.recordOutcome('deploy', { success: true, scope: ['project:p'] })).uses).toBe(1);
    expect((await p.skills.delete(inQ.id)).deleted).toBe(true);
    const gone = await expectError(() => p.skills.delete('nothing'), NotFoundError);
    expect(gone).not.toBeInstanceOf(SkillScopeRequiredError);
  }),
});
