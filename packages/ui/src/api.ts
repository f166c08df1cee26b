/**
 * The JSON API the page reads: a thin layer over the provider's read calls
 * (sessions, memory recall, skills, namespaces, a record's history, the
 * state at a point and the diff of two points), the log (filtered pages of
 * events) and the health of the store. Every answer is JSON; deletes are the
 * only writes, refused unless the server allows them.
 */
import { statSync } from 'node:fs';
import type { EventSourcedProvider, LogEvent, PointInput, RecallOptions, WhereInput } from '@agentstate/core';
import { EventTypes, STATE_STREAM, describeScope, parseScopeText, storedSnapshotBytes } from '@agentstate/core';
import { UiRequestError, WritesDisabledError } from './errors.js';
import { type EventFilter, matchesFilter, namespaceOf, writerOf } from './event-fields.js';
import { LogIndex } from './log-index.js';
import { countSnapshot } from './counts.js';
import { summarizeDiff } from './diff-summary.js';

/** A provider as the inspector reads it: SQLite and PostgreSQL ones can also verify their storage. */
export type InspectedProvider = EventSourcedProvider & { verify?: () => Promise<unknown> };

/** What the API needs besides the provider. */
export interface ApiOptions {
  allowWrites: boolean;
  /** The database file, for its size; absent for a server. */
  databaseFile?: string;
}

/** A request as the API sees it. */
export interface ApiRequest {
  method: string;
  /** The path below `/api`, e.g. `/sessions/0192…/turns`. */
  path: string;
  query: URLSearchParams;
}

/** How many events one page of the timeline scans back at most before it answers with what it found. */
const SCAN_LIMIT = 50_000;
const SCAN_BATCH = 5_000;
/** How many stored snapshots the health view lists. */
const SNAPSHOT_LIST = 20;

function int(query: URLSearchParams, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new UiRequestError(`${name} must be a whole number from 0 to ${max}, not ${JSON.stringify(text)}`);
  return n;
}

function text(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)?.trim();
  return value ? value : undefined;
}

/** The point named by `<prefix>seq` or `<prefix>time` (an ISO-8601 instant); absent: `fallback`. */
function pointParam(query: URLSearchParams, prefix: string, fallback: PointInput): PointInput {
  const time = text(query, `${prefix}time`);
  if (time !== undefined) return { time };
  return query.has(`${prefix}seq`) ? { seq: int(query, `${prefix}seq`, 0) } : fallback;
}

/** The scope `?namespace=` names, with the scopes under it; none: every scope. */
function scopeParams(query: URLSearchParams): { scope?: string[]; includeDescendants?: true } {
  const value = text(query, 'namespace');
  return value === undefined ? {} : { scope: parseScopeText(value, 'namespace'), includeDescendants: true };
}

const fileSize = (path: string): number | null => statSync(path, { throwIfNoEntry: false })?.size ?? null;

/** The metadata filter `?where=` holds, a JSON object. */
function whereParam(query: URLSearchParams): WhereInput | undefined {
  const where = text(query, 'where');
  try {
    return where === undefined ? undefined : (JSON.parse(where) as WhereInput);
  } catch {
    throw new UiRequestError('where must be a JSON object, e.g. {"topic":"billing"}');
  }
}

/** The routes of the API over one provider. */
export class Api {
  readonly #db: InspectedProvider;
  readonly #options: ApiOptions;
  readonly #index: LogIndex;

  constructor(db: InspectedProvider, options: ApiOptions) {
    this.#db = db;
    this.#options = options;
    this.#index = new LogIndex(db.log);
  }

  /** Answers `req` with a JSON value; errors are typed and mapped to statuses by the server. */
  async answer(req: ApiRequest): Promise<unknown> {
    const parts = req.path.split('/').filter(Boolean).map(decodeURIComponent);
    const [first, id, sub] = parts;
    const q = req.query;
    if (req.method === 'DELETE') return this.#delete(first, id);
    if (req.method === 'POST' && req.path === '/verify') return this.#verify();
    if (req.method === 'POST' && first === 'purge') return this.#purge(id, q.get('reason'));
    if (req.method !== 'GET') throw new UiRequestError(`${req.method} ${req.path} is not part of the API`);
    switch (first) {
      case 'overview':
        return this.#overview();
      case 'namespaces':
        return (await this.#db.namespaces({ limit: 1000 })).map((scope) => ({ scope, label: describeScope(scope) }));
      case 'sessions':
        if (id === undefined) return this.#sessions(q);
        if (id === 'search' && sub === undefined) return this.#searchSessions(q);
        if (sub === 'turns') return [...(await this.#db.sessions.turns(id, { limit: 0 }))];
        return this.#db.sessions.get(id);
      case 'recall':
        return this.#recall(q);
      case 'skills':
        if (id === undefined) return [...(await this.#db.skills.list({ scope: [], includeDescendants: true, limit: 0 }))];
        if (sub === 'version') return this.#skillVersion(id, int(q, 'seq', 0));
        return this.#skill(id);
      case 'log':
        return this.#events(q);
      case 'counts':
        return this.#counts(q);
      case 'diff':
        return this.#diff(q);
      case 'history':
        if (id === undefined) throw new UiRequestError('GET /api/history/<id> needs the id of a session, turn, skill or memory item');
        return this.#db.history(id);
      case 'health':
        return id === 'types' ? this.#eventTypes() : this.#health();
      default:
        throw new UiRequestError(`GET /api${req.path} is not part of the API`);
    }
  }

  async #overview() {
    return {
      backend: this.#db.name,
      head: await this.#db.log.head(STATE_STREAM),
      allowWrites: this.#options.allowWrites,
      canVerify: typeof this.#db.verify === 'function',
      eventTypes: Object.values(EventTypes),
    };
  }

  async #sessions(q: URLSearchParams) {
    const page = await this.#db.sessions.list({ ...scopeParams(q), limit: int(q, 'limit', 50, 500), cursor: text(q, 'cursor') });
    return { items: [...page], nextCursor: page.nextCursor ?? null };
  }

  async #searchSessions(q: URLSearchParams) {
    const hits = await this.#db.sessions.search({
      query: text(q, 'q'),
      ...scopeParams(q),
      mode: 'lexical',
      match: 'any',
      order: 'relevance',
      limit: int(q, 'limit', 50, 500),
      context: 0,
    });
    return hits.map((h) => ({ session: h.session, turn: h.turn, score: h.score }));
  }

  async #recall(q: URLSearchParams) {
    // A mode the provider does not know it refuses, as any bad option, with a 400.
    const mode = text(q, 'mode') ?? 'hybrid';
    const kinds = text(q, 'kinds')
      ?.split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const options: RecallOptions = {
      query: text(q, 'q'),
      mode: mode as RecallOptions['mode'],
      ...scopeParams(q),
      kinds: kinds && kinds.length > 0 ? kinds : undefined,
      where: whereParam(q),
      limit: int(q, 'limit', 20, 200),
      match: mode === 'lexical' ? 'any' : undefined,
      order: text(q, 'q') === undefined ? 'recent' : 'relevance',
    };
    return [...(await this.#db.memory.recall(options))];
  }

  /** The skill and its versions (the history index: the skill's own events, not a scan of the log). */
  async #skill(id: string) {
    const skill = await this.#db.skills.get(id);
    const history = (await this.#db.history(skill.id)).flatMap((v) =>
      v.kind === 'skill' ? [{ seq: v.seq, time: v.time, type: v.type, version: v.record.version, uses: v.record.uses, wins: v.record.wins }] : [],
    );
    return { skill, history };
  }

  async #skillVersion(id: string, seq: number) {
    const [event] = seq > 0 ? await this.#db.log.read({ stream: STATE_STREAM, afterSeq: seq - 1, limit: 1 }) : [];
    const skill = (event?.payload as { skill?: { id: string; body: string; version: number } } | undefined)?.skill;
    if (!event || event.type !== EventTypes.SkillUpserted || skill?.id !== id) throw new UiRequestError(`seq ${seq} is not a version of skill ${id}`);
    return { seq, version: skill.version, body: skill.body, time: event.time };
  }

  /** A page of events, newest first, ending before `before` (default: the head), filtered. */
  async #events(q: URLSearchParams) {
    const head = await this.#db.log.head(STATE_STREAM);
    const limit = int(q, 'limit', 100, 1000);
    const types = text(q, 'type');
    const filter: EventFilter = {
      types: types ? new Set(types.split(',')) : undefined,
      namespace: text(q, 'namespace'),
      writer: text(q, 'writer'),
    };
    let end = Math.min(int(q, 'before', head + 1) - 1, head);
    const found: LogEvent[] = [];
    let scanned = 0;
    while (end > 0 && found.length < limit && scanned < SCAN_LIMIT) {
      const from = Math.max(0, end - SCAN_BATCH);
      const batch = await this.#db.log.read({ stream: STATE_STREAM, afterSeq: from, limit: end - from });
      scanned += batch.length;
      for (let i = batch.length - 1; i >= 0 && found.length < limit; i -= 1) {
        const event = batch[i]!;
        if (matchesFilter(event, filter)) found.push(event);
      }
      end = found.length >= limit ? found[found.length - 1]!.seq - 1 : from;
    }
    return {
      head,
      events: found.map((e) => ({ ...e, namespace: namespaceOf(e) ?? null, writer: writerOf(e) ?? null })),
      /** Where the next page starts (pass as `before`), or null at the start of the log. */
      nextBefore: end > 0 ? end + 1 : null,
    };
  }

  /** Counts of the state at `?seq=` or `?time=` (default: the head), by the provider's time travel. */
  async #counts(q: URLSearchParams) {
    const head = await this.#db.log.head(STATE_STREAM);
    const view = await this.#db.at(pointParam(q, '', { seq: head }));
    return { head, time: view.time, ...countSnapshot(await view.capture()) };
  }

  /** What changed from `?fromseq=`/`?fromtime=` (default 0) to `?toseq=`/`?totime=` (default: the head). */
  async #diff(q: URLSearchParams) {
    const head = await this.#db.log.head(STATE_STREAM);
    return summarizeDiff(await this.#db.diff({ from: pointParam(q, 'from', { seq: 0 }), to: pointParam(q, 'to', { seq: head }) }));
  }

  async #health() {
    const log = this.#db.log;
    const head = await log.head(STATE_STREAM);
    const snapshots: Array<{ seq: number; bytes: number; sealed: string | null }> = [];
    for (let upToSeq = head; snapshots.length < SNAPSHOT_LIST && upToSeq > 0; ) {
      const stored = await log.latestSnapshot(STATE_STREAM, { upToSeq });
      if (!stored) break;
      snapshots.push({ seq: stored.seq, bytes: await storedSnapshotBytes(log, stored), sealed: /^([A-Za-z0-9][\w.-]*):/.exec(stored.data)?.[1] ?? null });
      upToSeq = stored.seq - 1;
    }
    const file = this.#options.databaseFile;
    return {
      backend: this.#db.name,
      head,
      sizes: file === undefined ? null : { file: fileSize(file), wal: fileSize(`${file}-wal`) },
      snapshots,
      // As `agentstate stats` lists them (docs/contract.md §12): this replica, and how far each origin held is received.
      replica: await this.#db.replicaId(),
      origins: Object.entries(await this.#db.vector()).map(([origin, seq]) => ({ origin, seq })),
    };
  }

  /** Events by type: one pass over the log on the first call, then only the events after it; asked after the rest of the health view. */
  async #eventTypes() {
    await this.#index.advance();
    return { head: this.#index.seen, countsByType: this.#index.countsByType() };
  }

  async #verify() {
    if (typeof this.#db.verify !== 'function') throw new UiRequestError(`the ${this.#db.name} backend has no verify`);
    return this.#db.verify();
  }

  /** Erases a record for good (`provider.purge`): its content leaves every event, table, index and snapshot. */
  async #purge(id: string | undefined, reason: string | null) {
    if (!this.#options.allowWrites) throw new WritesDisabledError();
    if (id === undefined || reason === null)
      throw new UiRequestError('POST /api/purge/<id>?reason=<why> needs the id of a session, turn, skill or memory item and a reason');
    return this.#db.purge({ id, reason });
  }

  async #delete(kind: string | undefined, id: string | undefined) {
    if (!this.#options.allowWrites) throw new WritesDisabledError();
    if (id === undefined) throw new UiRequestError('DELETE needs /api/<sessions|memory|skills>/<id>');
    const { sessions, memory, skills } = this.#db;
    const store = kind === 'sessions' ? sessions : kind === 'memory' ? memory : kind === 'skills' ? skills : undefined;
    if (store === undefined) throw new UiRequestError(`cannot delete ${kind ?? 'nothing'}: only sessions, memory and skills`);
    return store.delete(id);
  }
}
