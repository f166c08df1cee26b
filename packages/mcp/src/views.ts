/**
 * How tools show records: lean by default, whole on request (`full: true`).
 * Every token a tool returns is paid for by its user, so a lean record keeps
 * what an agent acts on — ids, text, scope, key, metadata, times, and the
 * `syncVersion` that `expectedSyncVersion` takes — and leaves out the rest
 * of the sync envelope (`originInstanceId`, `updatedHlc`, `lastWriterId`,
 * `deleted`), a memory item's `source`, a turn's `syncVersion`, and its
 * `parts` when they are only its `content` (the content rendering rule).
 * One projection per record kind, used by every tool.
 */
import type { MemoryItem, RecallHit, Session, Skill, Turn, TurnHit } from '@agentstate/core';
import { partsFromContent } from '@agentstate/core';
import { isDeepStrictEqual } from 'node:util';
import { WHOLE_ONLY } from './schemas.js';

/** `record` without the envelope fields and `also`. */
function lean(record: object, ...also: string[]): object {
  const kept: Record<string, unknown> = { ...record };
  for (const key of [...Object.keys(WHOLE_ONLY), ...also]) delete kept[key];
  return kept;
}

/** A turn as tools show it by default: `parts` only when they say more than `content`. */
const leanTurn = (t: Turn): object => lean(t, 'syncVersion', ...(isDeepStrictEqual(t.parts, partsFromContent(t.content)) ? ['parts'] : []));

/** The projection of each record kind a tool answers with. */
export interface View {
  /** A memory item, or a recalled one with its score. */
  memory(m: MemoryItem | RecallHit): object;
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

const WHOLE: View = { memory: same, skill: same, session: same, turn: same, turnHit: same };

const LEAN: View = {
  memory: (m) => lean(m, 'source'),
  skill: (s) => lean(s),
  session: (s) => lean(s),
  turn: leanTurn,
  turnHit: (h) => ({ turn: leanTurn(h.turn), session: lean(h.session), score: h.score, before: h.before.map(leanTurn), after: h.after.map(leanTurn) }),
};

/** The projections for a call's `full` argument: whole records when true, lean ones otherwise. */
export function viewFor(full: boolean | undefined): View {
  return full === true ? WHOLE : LEAN;
}
