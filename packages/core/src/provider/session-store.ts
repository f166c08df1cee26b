/** The session store over any backend. */
import { NotFoundError } from '../errors.js';
import { copySession, copyTurn } from '../records/copy.js';
import {
  createSessionInputSchema,
  listSessionsOptionsSchema,
  parseAppendTurnInput,
  parseInput,
  replaceSuffixInputSchema,
  turnInputSchema,
  turnsOptionsSchema,
  updateSessionInputSchema,
  compactSessionInputSchema,
  writeOptionsSchema,
} from '../records/inputs.js';
import { EventTypes, sessionAfterTurn } from '../log/events.js';
import type { Session, Turn } from '../records/records.js';
import { NUMBER_ASC, openPager, TEXT_ASC, toKeyset, toPage } from '../paging/cursor.js';
import { idField } from '../records/fields.js';
import { selectScopes } from '../records/scope.js';
import type { Engine } from './engine.js';
import { type SearchContext, liveSession as live, searchSessions } from './session-search.js';
import type { SessionStore } from './types.js';
import { operationCall, storeOperations } from './operations.js';
import { atIndex, parseBatch } from './batch.js';
import { andThen } from '../write/awaitable.js';

/** The session store's writes as idempotent operations. */
const OPERATIONS = storeOperations('sessions', {
  create: [EventTypes.SessionCreated],
  appendTurn: [EventTypes.TurnAppended],
  appendTurns: [EventTypes.TurnAppended],
  removeLastTurn: [EventTypes.TurnsRemoved],
  clear: [EventTypes.TurnsRemoved],
  replaceSuffix: [EventTypes.SuffixReplaced],
  delete: [EventTypes.SessionDeleted],
  update: [EventTypes.SessionUpdated],
  compact: [EventTypes.SessionCompacted],
});

/** Builds the {@link SessionStore} of an engine, but for `context`, which reads through the provider's stores. */
export function createSessionStore(engine: Engine, searchContext: SearchContext): Omit<SessionStore, 'context'> {
  const { backend, stamper } = engine;
  const q = backend.queries;

  return {
    async create(input = {}) {
      const draft = parseInput(createSessionInputSchema, input);
      const change = await engine.mutate(
        async (tx) => stamper.createSession(draft, draft.id === undefined ? undefined : await tx.session(draft.id)),
        operationCall(OPERATIONS.create, draft),
      );
      return copySession(change.payload.session);
    },

    async get(id) {
      return copySession(await live(q, parseInput(idField, id)));
    },

    async getAny(id) {
      const session = await q.session(parseInput(idField, id));
      if (!session) throw new NotFoundError('session', id);
      return copySession(session);
    },

    async list(options = {}) {
      const { cursor, limit = 0, ...query } = parseInput(listSessionsOptionsSchema, options);
      const pager = openPager<Session>({ method: 'sessions.list', query, order: [TEXT_ASC, TEXT_ASC], key: (s) => [s.createdAt, s.id] }, cursor);
      // The offset skips on the first page only: a cursor already stands past it.
      const offset = pager.after === undefined ? (query.offset ?? 0) : 0;
      const sessions = await q.listSessions({ limit: limit > 0 ? limit + 1 : 0, offset, after: toKeyset(pager.after), ...selectScopes(query) });
      return pager.page(sessions.map(copySession), limit);
    },

    async update(id, input) {
      parseInput(idField, id);
      const patch = parseInput(updateSessionInputSchema, input);
      const change = await engine.mutate(
        async (tx) => stamper.updateSession(patch, await tx.session(id), id),
        operationCall(OPERATIONS.update, { ...patch, id }),
      );
      return copySession(change.payload.session);
    },

    async compact(id, input) {
      parseInput(idField, id);
      const draft = parseInput(compactSessionInputSchema, input);
      const change = await engine.mutate(
        async (tx) => {
          const session = await tx.session(id);
          // The whole live transcript: a compaction is rare, and `through` may name any turn of it.
          return stamper.compactSession(draft, session, id, session && !session.deleted ? await tx.lastTurns(id, 0) : []);
        },
        operationCall(OPERATIONS.compact, { ...draft, id }),
      );
      return copySession(change.payload.session);
    },

    async appendTurn(input) {
      const draft = parseAppendTurnInput(input);
      // Chained look-ups rather than awaits: on a synchronous backend they cost no promise and no microtask turn.
      // Without a turn id of the caller's, no "id taken" can refuse the turn once its session is found live.
      const change = await engine.mutate(
        (tx) =>
          andThen(tx.session(draft.sessionId, draft.id === undefined), (session) =>
            andThen(session && !session.deleted ? tx.lastTurnSeq(draft.sessionId) : 0, (lastSeq) =>
              andThen(draft.id === undefined ? false : tx.turnExists(draft.id), (taken) => stamper.appendTurn(draft, session, lastSeq, taken)),
            ),
          ),
        operationCall(OPERATIONS.appendTurn, draft),
      );
      return copyTurn(change.payload.turn);
    },

    async appendTurns(sessionId, turns, options = {}) {
      parseInput(idField, sessionId);
      const drafts = parseBatch(turnInputSchema, turns, 'turns');
      const o = parseInput(writeOptionsSchema, options);
      const changes = await engine.mutateMany(
        async (tx) => {
          let session = await live(tx, sessionId);
          let lastSeq = await tx.lastTurnSeq(sessionId);
          const requested = new Set<string>();
          const out = [];
          // Each turn is stamped on the session the one before it left: the same events as one appendTurn each.
          for (const [i, draft] of drafts.entries()) {
            const taken = draft.id !== undefined && (requested.has(draft.id) || (await tx.turnExists(draft.id)));
            if (draft.id !== undefined) requested.add(draft.id);
            const change = atIndex('turns', i, () => stamper.appendTurn({ ...draft, sessionId }, session, lastSeq, taken));
            session = sessionAfterTurn(session, change.payload.turn);
            lastSeq = change.payload.turn.seq;
            out.push(change);
          }
          return out;
        },
        operationCall(OPERATIONS.appendTurns, { ...o, id: sessionId, turns: drafts }),
        drafts.length,
      );
      return changes.map((change) => copyTurn(change.payload.turn));
    },

    async turns(sessionId, options = {}) {
      const { cursor, limit = 0, ...rest } = parseInput(turnsOptionsSchema, options);
      const pager = openPager<Turn>({ method: 'sessions.turns', query: { sessionId, ...rest }, order: [NUMBER_ASC], key: (t) => [t.seq] }, cursor);
      await live(q, parseInput(idField, sessionId));
      // The newest `last` turns are one page: there is nothing after them.
      if (rest.last !== undefined) return toPage((await q.lastTurns(sessionId, rest.last)).map(copyTurn), undefined);
      const afterSeq = pager.after === undefined ? (rest.afterSeq ?? 0) : Number(pager.after[0]);
      const turns = await q.turns(sessionId, { afterSeq, limit: limit > 0 ? limit + 1 : 0 });
      return pager.page(turns.map(copyTurn), limit);
    },

    async removeLastTurn(id, options = {}) {
      parseInput(idField, id);
      const o = parseInput(writeOptionsSchema, options);
      const change = await engine.mutate(
        async (tx) => stamper.removeTurns(await tx.session(id), id, await tx.lastTurns(id, 1)),
        operationCall(OPERATIONS.removeLastTurn, { ...o, id }),
      );
      return copyTurn(change.payload.turns[0]!);
    },

    async clear(id, options = {}) {
      parseInput(idField, id);
      const o = parseInput(writeOptionsSchema, options);
      // No event when there is nothing to remove: an empty transcript stays as it is.
      const change = await engine.mutateIfNeeded(
        async (tx) => {
          const session = await live(tx, id);
          const turns = await tx.lastTurns(id, 0);
          return turns.length === 0 ? undefined : stamper.removeTurns(session, id, turns);
        },
        operationCall(OPERATIONS.clear, { ...o, id }),
      );
      return change === undefined ? [] : change.payload.turns.map(copyTurn);
    },

    async replaceSuffix(id, input) {
      parseInput(idField, id);
      const draft = parseInput(replaceSuffixInputSchema, input);
      const change = await engine.mutateIfNeeded(
        async (tx) => {
          const session = await live(tx, id);
          // Nothing expected and nothing added: the call changes nothing, so it writes nothing.
          if (draft.expected.length === 0 && draft.turns.length === 0) return undefined;
          // The newest live turns; fewer than expected cannot match, and the stamper says so.
          const tail = draft.expected.length === 0 ? [] : await tx.lastTurns(id, draft.expected.length);
          const taken = new Set<string>();
          for (const t of draft.turns) if (t.id !== undefined && (await tx.turnExists(t.id))) taken.add(t.id);
          return stamper.replaceSuffix(draft, session, id, tail, await tx.lastTurnSeq(id), taken);
        },
        operationCall(OPERATIONS.replaceSuffix, { ...draft, id }),
      );
      return change === undefined ? [] : change.payload.added.map(copyTurn);
    },

    async delete(id, options = {}) {
      parseInput(idField, id);
      const o = parseInput(writeOptionsSchema, options);
      const change = await engine.mutate(async (tx) => stamper.deleteSession(await tx.session(id), id), operationCall(OPERATIONS.delete, { ...o, id }));
      return copySession(change.payload.session);
    },

    search(options = {}) {
      return searchSessions(searchContext, options);
    },
  };
}
