/**
 * How tools show records: lean by default, whole on request (`full: true`).
 * Every token a tool returns is paid for by its user, so a lean record keeps
 * what an agent acts on — ids, text, scope, key, metadata, times, and the
 * `syncVersion` that `expectedSyncVersion` takes — and leaves out the rest
 * of the sync envelope (`originInstanceId`, `updatedHlc`, `lastWriterId`,
 * `deleted`), a memory item's `source`, and a turn's `parts` when they are
 * only its `content` (the content rendering rule). One projection per
 * record kind, used by every tool.
 */
import type { MemoryItem, RecallHit, Session, Skill, Turn, TurnHit } from '@agentstate/core';
import { partsFromContent } from '@agentstate/core';
import { isDeepStrictEqual } from 'node:util';

/** A memory item as tools show it by default. */
export function leanMemory(m: MemoryItem) {
  const { id, kind, content, scope, key, metadata, expiresAt, createdAt, updatedAt, syncVersion } = m;
  return { id, kind, content, scope, key, metadata, expiresAt, createdAt, updatedAt, syncVersion };
}

/** A skill as tools show it by default. */
export function leanSkill(s: Skill) {
  const { id, slug, name, body, tags, scope, uses, wins, check, version, createdAt, updatedAt, syncVersion } = s;
  return { id, slug, name, body, tags, scope, uses, wins, check, version, createdAt, updatedAt, syncVersion };
}

/** A session as tools show it by default. */
export function leanSession(s: Session) {
  const { id, title, model, scope, metadata, createdAt, updatedAt, syncVersion } = s;
  return { id, title, model, scope, metadata, createdAt, updatedAt, syncVersion };
}

/** A turn as tools show it by default: `parts` only when they say more than `content`. */
export function leanTurn(t: Turn) {
  const { id, sessionId, seq, role, content, parts, metadata, createdAt } = t;
  const plain = isDeepStrictEqual(parts, partsFromContent(content));
  return plain ? { id, sessionId, seq, role, content, metadata, createdAt } : { id, sessionId, seq, role, content, parts, metadata, createdAt };
}

/** The projection of each record kind a tool answers with. */
export interface View {
  /** A memory item. */
  memory(m: MemoryItem): object;
  /** A recalled memory item, with its score. */
  hit(h: RecallHit): object;
  /** A skill. */
  skill(s: Skill): object;
  /** A session. */
  session(s: Session): object;
  /** A turn. */
  turn(t: Turn): object;
  /** A transcript search hit: its turn, session and neighbouring turns. */
  turnHit(h: TurnHit): object;
}

const same = <T>(record: T): T => record;

const WHOLE: View = { memory: same, hit: same, skill: same, session: same, turn: same, turnHit: same };

const LEAN: View = {
  memory: leanMemory,
  hit: (h) => ({ ...leanMemory(h), score: h.score }),
  skill: leanSkill,
  session: leanSession,
  turn: leanTurn,
  turnHit: (h) => ({ turn: leanTurn(h.turn), session: leanSession(h.session), score: h.score, before: h.before.map(leanTurn), after: h.after.map(leanTurn) }),
};

/** The projections for a call's `full` argument: whole records when true, lean ones otherwise. */
export function viewFor(full: boolean | undefined): View {
  return full === true ? WHOLE : LEAN;
}
