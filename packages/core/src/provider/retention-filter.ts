/**
 * Reads that honour retention before any sweep (docs/contract.md §11): a
 * record a policy expires is invisible, as an expired memory item is. The
 * stores are wrapped, so every backend filters the same way; a page keeps
 * its cursor, so it may hold fewer records than its limit.
 */
import { NotFoundError } from '../errors.js';
import { type Page, toPage } from '../paging/cursor.js';
import { LIMITS } from '../records/limits.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import type { RetentionRecord } from '../records/retention.js';
import type { RetentionJudge } from './retention-policies.js';
import type { MemoryStore, SessionStore, SkillStore, TurnHit } from './types.js';

/** The stores retention filters. */
export interface FilteredStores {
  sessions: Omit<SessionStore, 'context'>;
  skills: SkillStore;
  memory: MemoryStore;
}

const hint = 'expired by a retention policy';

function filterPage<T>(page: Page<T>, keep: (item: T) => boolean): Page<T> {
  const kept = page.filter(keep);
  return kept.length === page.length ? page : toPage(kept, page.nextCursor);
}

/** Whether the judge expires a record of a kind reads filter. */
type Expired<T> = (j: RetentionJudge, record: T) => boolean;
const skillExpired: Expired<Skill> = (j, skill) => j.skill(skill);
const memoryExpired: Expired<MemoryItem> = (j, item) => j.memory(item);

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

  /** `page` without the records a policy expires now, when a policy covers their kind at all. */
  const filtered = async <T>(page: Promise<Page<T>>, kind: RetentionRecord, expired: Expired<T>): Promise<Page<T>> => {
    const [p, j] = await Promise.all([page, judge()]);
    return j.covers(kind) ? filterPage(p, (x) => !expired(j, x)) : p;
  };

  const sessions: FilteredStores['sessions'] = {
    ...s,
    get: async (id) => visibleSession(await s.get(id)),
    getAny: async (id) => visibleSession(await s.getAny(id)),
    list: async (options) => filtered(s.list(options), 'session', (j, x) => j.session(x)),
    turns: async (id, options) => {
      const j = await judge();
      if (!j.covers('session') && !j.covers('turn')) return s.turns(id, options);
      const session = await visibleSession(await s.get(id), j);
      const shown = (page: Page<Turn>) => filterPage(page, (t) => !j.turn(t, session.scope));
      const last = options?.last;
      if (last === undefined) return shown(await s.turns(id, options));
      // The newest `last` turns the policies leave: read further back while they hide some.
      for (let n = last; ; n *= 2) {
        const page = await s.turns(id, n > LIMITS.pageSize ? {} : { last: n });
        const kept = shown(page);
        if (kept.length >= last || n > LIMITS.pageSize || page.length < n) return toPage(kept.slice(-last), undefined);
      }
    },
    search: async (options) => {
      const [page, j] = await Promise.all([s.search(options), judge()]);
      if (!j.covers('session') && !j.covers('turn')) return page;
      const hits = page.flatMap((hit) => liveHit(j, hit) ?? []);
      return toPage(hits, page.nextCursor);
    },
  };

  /** `record` unless a policy expires it now: then a `NotFoundError` of `kind` naming `key`. */
  const visible = async <T>(record: Promise<T>, expired: Expired<T>, kind: 'skill' | 'memory', key: string): Promise<T> => {
    const found = await record;
    if (expired(await judge(), found)) throw new NotFoundError(kind, key, hint);
    return found;
  };

  const skills: SkillStore = {
    ...k,
    get: async (idOrSlug, options) => visible(k.get(idOrSlug, options), skillExpired, 'skill', idOrSlug),
    getAny: async (idOrSlug, options) => visible(k.getAny(idOrSlug, options), skillExpired, 'skill', idOrSlug),
    list: async (options) => filtered(k.list(options), 'skill', skillExpired),
    search: async (query, options) => filtered(k.search(query, options), 'skill', skillExpired),
  };

  const memory: MemoryStore = {
    ...m,
    get: async (id) => visible(m.get(id), memoryExpired, 'memory', id),
    getByKey: async (key, options) => visible(m.getByKey(key, options), memoryExpired, 'memory', key),
    getAny: async (id) => visible(m.getAny(id), memoryExpired, 'memory', id),
    recall: async (options) => filtered(m.recall(options), 'memory', memoryExpired),
  };

  return { sessions, skills, memory };
}
