/** Skill tools: search, get, save, record an outcome, delete. */
import type { Skill } from '@agentstate/core';
import { NotFoundError, sameScope } from '@agentstate/core';
import { outputs, skillInputs } from '../schemas.js';
import { defineTool, type ToolContext } from './context.js';

/** The default number of skills a search returns. */
const DEFAULT_SEARCH_LIMIT = 20;

/**
 * The skill a call names: by id, any skill this server may read (`write`:
 * change); by slug, the most specific one along the target's scopes (its
 * parents too when `includeParents`) for a read, and exactly the target
 * scope's for a write (which never falls through to a parent's skill of the
 * same slug).
 */
export async function findSkill(ctx: ToolContext, key: string, scope: readonly string[] | undefined, includeParents?: boolean, write = false): Promise<Skill> {
  const target = ctx.policy.target(scope);
  const bySlug = write ? [target] : ctx.policy.readScopes(target, ctx.policy.includeParents(includeParents));
  const found = await ctx.provider.skills.get(key, { scope: target });
  if (found.id === key) ctx.policy[write ? 'assertWritable' : 'assertReadable']('skill', key, found.scope);
  else if (!bySlug.some((s) => sameScope(s, found.scope))) throw new NotFoundError('skill', key);
  return found;
}

/** The skill tools, by name. */
export const skillTools = {
  skill_search: defineTool({
    title: 'Search skills',
    description:
      "Finds reusable procedures (skills) by words in their slug, name, body or tags, in this server's scope. Returns whole skills, with their uses and wins.",
    input: skillInputs.search,
    output: outputs.skills,
    effect: 'read',
    async run({ query, scope, includeParentScopes, limit = DEFAULT_SEARCH_LIMIT, ...rest }, view, { provider, policy }) {
      const skills = await provider.skills.search(query ?? '', {
        ...rest,
        limit,
        scope: policy.target(scope),
        includeParentScopes: policy.includeParents(includeParentScopes),
      });
      return { skills: skills.map(view.skill), nextCursor: skills.nextCursor };
    },
  }),

  skill_get: defineTool({
    title: 'Get a skill',
    description: "Reads one skill by id or slug: by slug, the most specific one in this server's scope (or its parents, when allowed).",
    input: skillInputs.get,
    output: outputs.skill,
    effect: 'read',
    run: async (args, view, ctx) => ({ skill: view.skill(await findSkill(ctx, args.skill, args.scope, args.includeParentScopes)) }),
  }),

  skill_save: defineTool({
    title: 'Save a skill',
    description:
      "Creates or updates the skill with this slug in this server's scope. Fields left out keep their stored values; each save bumps `version`, and every earlier version stays in the history. " +
      'Pass expectedSyncVersion (the syncVersion you read) to refuse the save if someone changed the skill meanwhile.',
    input: skillInputs.save,
    output: outputs.skill,
    effect: 'write',
    async run({ expectedSyncVersion, ...input }, view, { provider, policy }) {
      return { skill: view.skill(await provider.skills.upsert({ ...input, scope: policy.target(input.scope), syncVersion: expectedSyncVersion })) };
    },
  }),

  skill_record_outcome: defineTool({
    title: 'Record a skill outcome',
    description: 'Records that a skill was used, and whether it worked: adds one use, and one win on success, atomically (no lost updates between agents).',
    input: skillInputs.recordOutcome,
    output: outputs.skill,
    effect: 'write',
    async run(args, view, ctx) {
      const found = await findSkill(ctx, args.skill, args.scope, undefined, true);
      return { skill: view.skill(await ctx.provider.skills.recordOutcome(found.id, { success: args.success, operationId: args.operationId })) };
    },
  }),

  skill_delete: defineTool({
    title: 'Delete a skill',
    description:
      "Tombstones a skill by id, or by slug in this server's scope: it disappears from reads, but stays in the replayable history. Deleting a skill that is already a tombstone answers with that tombstone; one that never existed is not_found.",
    input: skillInputs.delete,
    output: outputs.skill,
    effect: 'delete',
    async run(args, view, { provider, policy }) {
      // A live skill or a tombstone, by id (any scope this server may change) or by slug in exactly the
      // target scope, as for live skills; one that never existed is not_found.
      const found = await provider.skills.getAny(args.skill, { scope: policy.target(args.scope) });
      if (found.id === args.skill) policy.assertWritable('skill', found.id, found.scope);
      return { skill: view.skill(found.deleted ? found : await provider.skills.delete(found.id)) };
    },
  }),
};
