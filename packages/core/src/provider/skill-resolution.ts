/**
 * Which skill an id or slug names (docs/contract.md §4): an id first; else by
 * slug — with a scope, the most specific match along its parent chain;
 * without one, the global skill only. A slug absent from the global scope
 * but live elsewhere is refused with {@link SkillScopeRequiredError} rather
 * than resolved to another project's skill.
 */
import { SkillScopeRequiredError } from '../errors.js';
import type { Skill } from '../records/records.js';
import { type ScopeInput, compareScopes, describeScope, isGlobalScope, sameScope, scopeChain, toScope } from '../records/scope.js';
import type { StateLookups } from '../write/backend.js';

/**
 * The live skill `idOrSlug` names, or undefined when nothing live does.
 * Throws {@link SkillScopeRequiredError} for a slug without a scope that is
 * live only outside the global scope.
 */
export async function resolveSkill(lookups: StateLookups, idOrSlug: string, scope: ScopeInput | undefined): Promise<Skill | undefined> {
  const byId = await lookups.skill(idOrSlug);
  if (byId && !byId.deleted) return byId;
  const candidates = await lookups.liveSkillsBySlug(idOrSlug);
  if (candidates.length === 0) return undefined;
  if (scope !== undefined) {
    for (const level of scopeChain(toScope(scope))) {
      const hit = candidates.find((s) => sameScope(s.scope, level));
      if (hit) return hit;
    }
    return undefined;
  }
  const global = candidates.find((s) => isGlobalScope(s.scope));
  if (global) return global;
  const scopes = candidates.map((s) => s.scope).sort(compareScopes);
  throw new SkillScopeRequiredError(idOrSlug, scopes, scopes.map(describeScope).join(', '));
}
