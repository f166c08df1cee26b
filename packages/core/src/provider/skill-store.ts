/** The skill store over any backend. */
import { z } from 'zod';
import { NotFoundError, SkillScopeRequiredError } from '../errors.js';
import { copySkill } from '../records/copy.js';
import {
  deleteSkillOptionsSchema,
  listSkillsOptionsSchema,
  parseInput,
  recordOutcomeInputSchema,
  scopeOptionsSchema,
  searchSkillsOptionsSchema,
  upsertSkillInputSchema,
} from '../records/inputs.js';
import { EventTypes } from '../log/events.js';
import { type Pager, NUMBER_DESC, openPager, TEXT_ASC, toKeyset, toPage } from '../paging/cursor.js';
import { textField } from '../records/fields.js';
import { LIMITS } from '../records/limits.js';
import { compareSkillsBySlug } from '../records/order.js';
import type { Skill } from '../records/records.js';
import { type ScopeInput, compareScopes, describeScope, isGlobalScope, sameScope, scopeChain, selectScopes, toScope } from '../records/scope.js';
import type { StateLookups } from '../write/backend.js';
import { queryTokens } from '../matching/lexical.js';
import type { Engine } from './engine.js';
import type { SkillStore } from './types.js';
import { operationCall, storeOperations } from './operations.js';

/** The skill store's writes as idempotent operations. */
const OPERATIONS = storeOperations('skills', {
  upsert: [EventTypes.SkillUpserted],
  recordOutcome: [EventTypes.SkillOutcomeRecorded],
  delete: [EventTypes.SkillDeleted],
});

const keySchema = z.string().min(1, 'must not be empty');
const querySchema = textField(LIMITS.query);

/** Laplace-smoothed success rate: a skill with no evidence sits at 0.5. */
function winRate(s: Skill): number {
  return (s.wins + 1) / (s.uses + 2);
}

/** A skill with the score its search order ranks it by. */
interface RankedSkill {
  skill: Skill;
  score: number;
}

const BY_SLUG = [TEXT_ASC, TEXT_ASC];
const BY_SCORE = [NUMBER_DESC, TEXT_ASC, TEXT_ASC];

/** Builds the {@link SkillStore} of an engine. */
export function createSkillStore(engine: Engine): SkillStore {
  const { backend, stamper } = engine;
  const q = backend.queries;

  return {
    async upsert(input) {
      const draft = parseInput(upsertSkillInputSchema, input);
      const scope = toScope(draft.scope);
      const change = await engine.mutate(
        async (tx) => {
          const stored = await tx.skillAt(scope, draft.slug);
          const holder = draft.id === undefined ? undefined : await tx.skill(draft.id);
          return stamper.upsertSkill(draft, stored, holder);
        },
        operationCall(OPERATIONS.upsert, draft),
      );
      return copySkill(change.payload.skill);
    },

    async get(idOrSlug, options = {}) {
      const key = parseInput(keySchema, idOrSlug);
      const { scope } = parseInput(scopeOptionsSchema, options);
      return copySkill(await resolveSkill(q, key, scope));
    },

    async getAny(idOrSlug, options = {}) {
      const key = parseInput(keySchema, idOrSlug);
      const { scope } = parseInput(scopeOptionsSchema, options);
      const skill = (await q.skill(key)) ?? (await q.skillAt(toScope(scope), key));
      if (!skill) throw new NotFoundError('skill', key);
      return copySkill(skill);
    },

    async list(options = {}) {
      const { scope, cursor, limit = 0, includeDescendants = false } = parseInput(listSkillsOptionsSchema, options);
      const s = toScope(scope);
      const pager = openPager<Skill>({ method: 'skills.list', query: { scope: s, includeDescendants }, order: BY_SLUG, key: (k) => [k.slug, k.id] }, cursor);
      const skills = await q.listSkills(s, { after: toKeyset(pager.after), limit: limit > 0 ? limit + 1 : 0, includeDescendants });
      return pager.page(skills.map(copySkill), limit);
    },

    async search(query, limitOrOptions = {}) {
      const text = parseInput(querySchema, query);
      const o = parseInput(searchSkillsOptionsSchema, typeof limitOrOptions === 'number' ? { limit: limitOrOptions } : limitOrOptions);
      const { cursor, limit = 0, ...rest } = o;
      const order = o.order ?? 'slug';
      const scored = order !== 'slug';
      const pager: Pager<RankedSkill> = openPager(
        {
          method: 'skills.search',
          query: { text, ...rest, order },
          order: scored ? BY_SCORE : BY_SLUG,
          key: (r) => (scored ? [r.score, r.skill.slug, r.skill.id] : [r.skill.slug, r.skill.id]),
        },
        cursor,
      );
      const tokens = queryTokens(text);
      if (tokens === null) return toPage<Skill>([], undefined);
      const scopes = selectScopes(o);
      const fetch = limit > 0 ? limit + 1 : 0;
      let ranked: RankedSkill[];
      if (order === 'winRate') {
        // Win rates are computed here, so the keyset is applied here too.
        const all = await q.searchSkills({ tokens, ...scopes, limit: 0, order: 'slug', match: o.match });
        ranked = all
          .map((h) => ({ skill: h.record, score: winRate(h.record) }))
          .sort((a, b) => b.score - a.score || compareSkillsBySlug(a.skill, b.skill))
          .filter((r) => pager.isAfter(r));
        if (fetch > 0) ranked = ranked.slice(0, fetch);
      } else {
        const hits = await q.searchSkills({ tokens, ...scopes, limit: fetch, order, match: o.match, after: toKeyset(pager.after) });
        ranked = hits.map((h) => ({ skill: h.record, score: h.score }));
      }
      const page = pager.page(ranked, limit);
      return toPage(
        page.map((r) => copySkill(r.skill)),
        page.nextCursor,
      );
    },

    async recordOutcome(idOrSlug, input) {
      const key = parseInput(keySchema, idOrSlug);
      const o = parseInput(recordOutcomeInputSchema, input);
      const change = await engine.mutate(
        async (tx) => stamper.recordOutcome(await resolveSkill(tx, key, o.scope), o.success),
        operationCall(OPERATIONS.recordOutcome, { ...o, idOrSlug: key }),
      );
      return copySkill(change.payload.skill);
    },

    async delete(idOrSlug, options = {}) {
      const key = parseInput(keySchema, idOrSlug);
      const { scope: s, ...o } = parseInput(deleteSkillOptionsSchema, options);
      const change = await engine.mutate(
        async (tx) => stamper.deleteSkill(await resolveSkill(tx, key, s)),
        operationCall(OPERATIONS.delete, { ...o, idOrSlug: key, scope: s }),
      );
      return copySkill(change.payload.skill);
    },
  };
}

/**
 * Which skill an id or slug names (docs/contract.md §4): an id first; else by
 * slug — with a scope, the most specific match along its parent chain;
 * without one, the global skill only. A slug absent from the global scope
 * but live elsewhere is refused with {@link SkillScopeRequiredError} rather
 * than resolved to another project's skill; nothing live: `NotFoundError`.
 */
async function resolveSkill(lookups: StateLookups, idOrSlug: string, scope: ScopeInput | undefined): Promise<Skill> {
  const byId = await lookups.skill(idOrSlug);
  if (byId && !byId.deleted) return byId;
  const candidates = await lookups.liveSkillsBySlug(idOrSlug);
  if (candidates.length === 0) throw new NotFoundError('skill', idOrSlug);
  if (scope !== undefined) {
    for (const level of scopeChain(toScope(scope))) {
      const hit = candidates.find((s) => sameScope(s.scope, level));
      if (hit) return hit;
    }
    throw new NotFoundError('skill', idOrSlug);
  }
  const global = candidates.find((s) => isGlobalScope(s.scope));
  if (global) return global;
  const scopes = candidates.map((s) => s.scope).sort(compareScopes);
  throw new SkillScopeRequiredError(idOrSlug, scopes, scopes.map(describeScope).join(', '));
}
