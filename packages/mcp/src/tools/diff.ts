/**
 * The state_diff tool (read-only): what was created, changed and deleted
 * between two points of the log, limited to the records this server may read.
 */
import type { RecordDiff, Scope, Turn } from '@agentstate/core';
import { parsePoint } from '@agentstate/open';
import { STATE_STREAM } from '@agentstate/core';
import { diffInputs, outputs } from '../schemas.js';
import { defineTool, eventSourced } from './context.js';

/** Only the records `keep` lets through, each as `show` projects it. */
function only<T>(diff: RecordDiff<T>, keep: (record: T) => boolean, show: (record: T) => object) {
  return {
    created: diff.created.filter(keep).map(show),
    changed: diff.changed.filter((c) => keep(c.before) && keep(c.after)).map((c) => ({ before: show(c.before), after: show(c.after) })),
    deleted: diff.deleted.filter(keep).map(show),
  };
}

/** The state_diff tool. */
export const stateDiffTool = defineTool({
  title: 'What changed between two points',
  description:
    'Lists the sessions, turns, skills and memory items this server may read that were created, changed (before and after) or deleted between two points of the log: ' +
    'each point a seq of the log or an ISO-8601 instant (the last event at or before it). Omit `to` for now.',
  input: diffInputs,
  output: outputs.diff,
  effect: 'read',
  async run(args, view, { provider, policy }) {
    const source = eventSourced(provider, 'history to compare');
    const to = args.to === undefined ? { seq: await source.log.head(STATE_STREAM) } : parsePoint(args.to);
    const diff = await source.diff({ from: parsePoint(args.from), to });
    const readable = (record: { scope: Scope }) => policy.canRead(record.scope);
    // A turn is readable with its session; a session's scope never changes, so any version of it tells.
    const scopes = new Map<string, Scope | undefined>();
    for (const s of [...diff.sessions.created, ...diff.sessions.deleted, ...diff.sessions.changed.map((c) => c.after)]) scopes.set(s.id, s.scope);
    for (const turn of [...diff.turns.created, ...diff.turns.deleted, ...diff.turns.changed.map((c) => c.after)]) {
      if (!scopes.has(turn.sessionId)) scopes.set(turn.sessionId, (await provider.sessions.getAny(turn.sessionId).catch(() => undefined))?.scope);
    }
    const turnReadable = (turn: Turn) => {
      const scope = scopes.get(turn.sessionId);
      return scope !== undefined && policy.canRead(scope);
    };
    return {
      from: diff.from,
      to: diff.to,
      sessions: only(diff.sessions, readable, view.session),
      turns: only(diff.turns, turnReadable, view.turn),
      skills: only(diff.skills, readable, view.skill),
      memory: only(diff.memory, readable, view.memory),
    };
  },
});
