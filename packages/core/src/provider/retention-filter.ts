/**
 * Reads that honour retention before any sweep (docs/contract.md §11): a
 * record a policy expires is invisible, as an expired memory item is. The
 * stores are wrapped, so every backend filters the same way; a page keeps
 * its cursor, so it may hold fewer records than its limit.
 */
import { NotFoundError } from '../errors.js';
import type { Page } from '../paging/cursor.js';
import { toPage } from '../paging/cursor.js';
import type { Session } from '../records/records.js';
import type { RetentionJudge } from './retention-policies.js';
import type { ListSkillsOptions, ScopeOptions } from '../records/inputs.js';
import type { ScopeInput } from '../records/scope.js';
import { keyAndScope, scopeOptions } from './scope-arguments.js';
import type { MemoryStore, SessionStore, SkillStore, TurnHit } from './types.js';

/** The stores retention filters. */
export interface FilteredStores {
  sessions: SessionStore;
  skills: SkillStore;
  memory: MemoryStore;
}

const hint = 'expired by a retention policy';

function filterPage<T>(page: Page<T>, keep: (item: T) => boolean): Page<T> {
  const kept = page.filter(keep);
  return kept.length === page.length ? page : toPage(kept, page.nextCursor);
}

/** `stores` with every read filtered through the judge `judge()` returns for the moment of the read. */
export function withRetention(stores: FilteredStores, judge: () => Promise<RetentionJudge>): FilteredStores {
  const { sessions: s, skills: k, memory: m } = stores;

  const visibleSession = async (session: Session, j?: RetentionJudge): Promise<Session> => {
    if ((j ?? (await judge())).session(session)) throw new NotFoundError('session', session.id, hint);
    return session;
  };
  const liveHit = (j: RetentionJudge, hit: TurnHit): TurnHit | undefined => {
    if (j.session(hit.session) || j.turn(hit.turn, hit.session.scope)) return undefined;
    const shown = (list: TurnHit['before']) => list.filter((t) => !j.turn(t, hit.session.scope));
    return { ...hit, before: shown(hit.before), after: shown(hit.after) };
  };

  const sessions: SessionStore = {
    ...s,
    get: async (id) => visibleSession(await s.get(id)),
    getAny: async (id) => visibleSession(await s.getAny(id)),
    list: async (options) => {
      const [page, j] = await Promise.all([s.list(options), judge()]);
      return j.covers('session') ? filterPage(page, (x) => !j.session(x)) : page;
    },
    turns: async (id, options) => {
      const j = await judge();
      if (!j.covers('session') && !j.covers('turn')) return s.turns(id, options);
      const session = await visibleSession(await s.get(id), j);
      return filterPage(await s.turns(id, options), (t) => !j.turn(t, session.scope));
    },
    search: async (options) => {
      const [page, j] = await Promise.all([s.search(options), judge()]);
      if (!j.covers('session') && !j.covers('turn')) return page;
      const hits = page.flatMap((hit) => liveHit(j, hit) ?? []);
      return toPage(hits, page.nextCursor);
    },
  };

  const skills: SkillStore = {
    ...k,
    get: async (idOrSlug: string, options?: ScopeOptions | ScopeInput) => {
      const skill = await k.get(idOrSlug, scopeOptions(options));
      if ((await judge()).skill(skill)) throw new NotFoundError('skill', idOrSlug, hint);
      return skill;
    },
    getAny: async (idOrSlug: string, options?: ScopeOptions | ScopeInput) => {
      const skill = await k.getAny(idOrSlug, scopeOptions(options));
      if ((await judge()).skill(skill)) throw new NotFoundError('skill', idOrSlug, hint);
      return skill;
    },
    list: async (first?: ListSkillsOptions | ScopeInput, legacy?: Omit<ListSkillsOptions, 'scope'>) => {
      const [page, j] = await Promise.all([k.list(scopeOptions(first, legacy)), judge()]);
      return j.covers('skill') ? filterPage(page, (x) => !j.skill(x)) : page;
    },
    search: async (query, options) => {
      const [page, j] = await Promise.all([k.search(query, options), judge()]);
      return j.covers('skill') ? filterPage(page, (x) => !j.skill(x)) : page;
    },
  };

  const memory: MemoryStore = {
    ...m,
    get: async (id) => {
      const item = await m.get(id);
      if ((await judge()).memory(item)) throw new NotFoundError('memory', id, hint);
      return item;
    },
    getByKey: async (first: string | ScopeInput, second?: string | ScopeOptions) => {
      const { key, scope } = keyAndScope(first, second);
      const item = await m.getByKey(key as string, { scope });
      if ((await judge()).memory(item)) throw new NotFoundError('memory', key as string, hint);
      return item;
    },
    getAny: async (id) => {
      const item = await m.getAny(id);
      if ((await judge()).memory(item)) throw new NotFoundError('memory', id, hint);
      return item;
    },
    recall: async (options) => {
      const [page, j] = await Promise.all([m.recall(options), judge()]);
      return j.covers('memory') ? filterPage(page, (x) => !j.memory(x)) : page;
    },
  };

  return { sessions, skills, memory };
}
