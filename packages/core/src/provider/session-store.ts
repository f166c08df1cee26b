/** The session store over any backend. */
import { NotFoundError } from '../errors.js';
import { copySession, copyTurn } from '../records/copy.js';
import type { AppendTurnInput, CreateSessionInput, ListSessionsOptions, TurnsOptions } from '../records/inputs.js';
import { appendTurnInputSchema, createSessionInputSchema, listSessionsOptionsSchema, parseInput, turnsOptionsSchema } from '../records/inputs.js';
import type { Session } from '../records/records.js';
import { idField } from '../records/fields.js';
import type { Engine } from './engine.js';
import { selectScopes } from './scope-selection.js';
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
      const o = parseInput(listSessionsOptionsSchema, options);
      const sessions = await q.listSessions({ limit: o.limit ?? 0, offset: o.offset ?? 0, ...selectScopes(o) });
      return sessions.map(copySession);
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
      const o = parseInput(turnsOptionsSchema, options);
      await live(sessionId);
      const turns = await q.turns(sessionId, { afterSeq: o.afterSeq ?? 0, limit: o.limit ?? 0 });
      return turns.map(copyTurn);
    },

    async delete(id: string) {
      parseInput(idField, id);
      const change = await engine.mutate(async (tx) => stamper.deleteSession(await tx.session(id), id));
      return copySession(change.payload.session);
    },
  };
}
