/** The session store over any backend. */
import { NotFoundError } from '../errors.js';
import { copySession, copyTurn } from '../records/copy.js';
import type { AppendTurnInput, CreateSessionInput, ListSessionsOptions, TurnsOptions } from '../records/inputs.js';
import { appendTurnInputSchema, createSessionInputSchema, listSessionsOptionsSchema, parseInput, turnsOptionsSchema } from '../records/inputs.js';
import type { Session, Turn } from '../records/records.js';
import { NUMBER_ASC, openPager, TEXT_ASC, toKeyset } from '../paging/cursor.js';
import { idField } from '../records/fields.js';
import type { Engine } from './engine.js';
import type { SessionStore } from './types.js';

/** Builds the {@link SessionStore} of an engine. */
export function createSessionStore(engine: Engine): SessionStore {
  const { backend, stamper } = engine;
  const q = backend.queries;

  const live = async (id: string): Promise<Session> => {
    const session = await q.session(parseInput(idField, id));
    if (!session || session.deleted) throw new NotFoundError('session', id);
    return session;
  };

  return {
    async create(input: CreateSessionInput = {}) {
      const draft = parseInput(createSessionInputSchema, input);
      const change = await engine.mutate(async (tx) => stamper.createSession(draft, draft.id === undefined ? undefined : await tx.session(draft.id)));
      return copySession(change.payload.session);
    },

    async get(id: string) {
      return copySession(await live(id));
    },

    async list(options: ListSessionsOptions = {}) {
      const { cursor, limit = 0, ...query } = parseInput(listSessionsOptionsSchema, options);
      const pager = openPager<Session>({ method: 'sessions.list', query, order: [TEXT_ASC, TEXT_ASC], key: (s) => [s.createdAt, s.id] }, cursor);
      // The offset skips on the first page only: a cursor already stands past it.
      const offset = pager.after === undefined ? (query.offset ?? 0) : 0;
      const sessions = await q.listSessions({ limit: limit > 0 ? limit + 1 : 0, offset, after: toKeyset(pager.after) });
      return pager.page(sessions.map(copySession), limit);
    },

    async appendTurn(input: AppendTurnInput) {
      const draft = parseInput(appendTurnInputSchema, input);
      const change = await engine.mutate(async (tx) => {
        const session = await tx.session(draft.sessionId);
        const lastSeq = session && !session.deleted ? await tx.lastTurnSeq(draft.sessionId) : 0;
        const taken = draft.id === undefined ? false : await tx.turnExists(draft.id);
        return stamper.appendTurn(draft, session, lastSeq, taken);
      });
      return copyTurn(change.payload.turn);
    },

    async turns(sessionId: string, options: TurnsOptions = {}) {
      const { cursor, limit = 0, ...rest } = parseInput(turnsOptionsSchema, options);
      const pager = openPager<Turn>({ method: 'sessions.turns', query: { sessionId, ...rest }, order: [NUMBER_ASC], key: (t) => [t.seq] }, cursor);
      await live(sessionId);
      const afterSeq = pager.after === undefined ? (rest.afterSeq ?? 0) : Number(pager.after[0]);
      const turns = await q.turns(sessionId, { afterSeq, limit: limit > 0 ? limit + 1 : 0 });
      return pager.page(turns.map(copyTurn), limit);
    },

    async delete(id: string) {
      parseInput(idField, id);
      const change = await engine.mutate(async (tx) => stamper.deleteSession(await tx.session(id), id));
      return copySession(change.payload.session);
    },
  };
}
