/** The records a purge selects in the in-memory read model (the reference the SQL backends agree with). */
import type { Holders } from '../log/erasure.js';
import type { PurgedRecords } from '../log/events.js';
import { recordHolds } from '../log/holds.js';
import { scopeStartsWith } from '../records/scope.js';
import type { Scope, Turn } from '../records/records.js';
import type { PurgeSelector } from '../write/backend.js';
import type { InMemoryState } from '../fold/state.js';
import { sortedById } from '../provider/purge.js';

/**
 * Tombstones included: one record by id (a session with every turn it ever
 * had), every session, skill and memory item of a scope or its descendants
 * (sessions with their turns), or every record that holds the text (core's
 * `recordHolds`) or whose id `held` names (the records an earlier event
 * shows holding it), a session with its turns. Each list in id order.
 */
export function purgeableIn(state: InMemoryState, selector: PurgeSelector, held?: Holders): PurgedRecords {
  const out: PurgedRecords = { sessions: [], turns: [], skills: [], memory: [] };
  const allTurns = (sessionId: string): Turn[] => [...(state.turns.get(sessionId) ?? [])];
  if ('id' in selector) {
    const session = state.sessions.get(selector.id);
    if (session) out.sessions.push(session);
    out.turns.push(...allTurns(selector.id));
    const turn = state.turn(selector.id);
    if (turn) out.turns.push(turn);
    const skill = state.skills.get(selector.id);
    if (skill) out.skills.push(skill);
    const item = state.memory.get(selector.id);
    if (item) out.memory.push(item);
  } else if ('namespace' in selector) {
    const inScope = (scope: Scope) => scopeStartsWith(scope, selector.namespace);
    for (const session of state.sessions.values()) {
      if (!inScope(session.scope)) continue;
      out.sessions.push(session);
      out.turns.push(...allTurns(session.id));
    }
    for (const skill of state.skills.values()) if (inScope(skill.scope)) out.skills.push(skill);
    for (const item of state.memory.values()) if (inScope(item.scope)) out.memory.push(item);
  } else {
    const text = selector.matching;
    const sessions = new Set<string>();
    for (const session of state.sessions.values()) {
      if (!held?.sessions.has(session.id) && !recordHolds('session', session, text)) continue;
      sessions.add(session.id);
      out.sessions.push(session);
      out.turns.push(...allTurns(session.id));
    }
    for (const list of state.turns.values())
      for (const turn of list) if (!sessions.has(turn.sessionId) && (held?.turns.has(turn.id) || recordHolds('turn', turn, text))) out.turns.push(turn);
    for (const skill of state.skills.values()) if (held?.skills.has(skill.id) || recordHolds('skill', skill, text)) out.skills.push(skill);
    for (const item of state.memory.values()) if (held?.memory.has(item.id) || recordHolds('memory', item, text)) out.memory.push(item);
  }
  return sortedById(out);
}
