/** G10: a write that rolls back leaves no trace (docs/contract.md §4, §7). */
import type { EventSourcedProvider } from '@agentstate/core';
import { AgentStateError, encodeSnapshot, STATE_STREAM } from '@agentstate/core';
import { expect } from 'vitest';
import { poll, subscribed } from '../suite/follow.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, freshLog } from '../suite/harness.js';
import { says } from '../suite/fixtures.js';

/** Writes the store refuses, each after doing part of its work: every one names itself `doomed`. */
function refusedWrites(p: EventSourcedProvider, ids: { session: string; turn: string; item: string }): (() => Promise<unknown>)[] {
  return [
    () =>
      p.sessions.appendTurns(ids.session, [
        { role: 'user', content: 'doomed first of a batch' },
        { id: ids.turn, role: 'user', content: 'doomed: the id is taken' },
      ]),
    () => p.memory.writeMany([{ content: 'doomed first item' }, { id: 'doomed-id', content: 'doomed: the key is held', key: 'slot' }]),
    () => p.skills.upsert({ slug: 'kept', body: 'doomed: stale', syncVersion: 99 }),
    () => p.memory.update(ids.item, { content: 'doomed: stale', syncVersion: 99 }),
    () => p.sessions.appendTurn({ sessionId: 'doomed-missing', role: 'user', content: 'doomed: no such session' }),
  ];
}

/** Writes that reach their COMMIT, lone and batched, each naming itself `doomed`. */
function committingWrites(p: EventSourcedProvider, session: string): (() => Promise<unknown>)[] {
  return [
    () => p.memory.write({ content: 'doomed at COMMIT' }),
    () => p.sessions.appendTurn({ sessionId: session, role: 'user', content: 'doomed at COMMIT' }),
    () => p.sessions.appendTurns(session, [says('doomed batch at COMMIT'), says('doomed too', 'assistant')]),
    () => p.skills.recordOutcome('kept', { success: true }),
  ];
}

export const rollbackChecks: ProviderCheck[] = checks(['eventSourced'], {
  'G10 a write that rolls back (a batch failing midway, a refused write, a failed COMMIT) leaves no event, position or read behind; the next write is seen':
    freshLog(async (p, env) => {
      const session = await p.sessions.create({ title: 'kept' });
      const turn = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'kept turn' });
      const item = await p.memory.write({ content: 'kept fact', key: 'slot' });
      await p.skills.upsert({ slug: 'kept', name: 'Kept', body: 'kept' });
      const start = await p.log.head(STATE_STREAM);
      const before = encodeSnapshot(await p.snapshot());
      const reader = poll(p.log, start);
      const subscriber = subscribed(p.log, start);
      try {
        for (const write of refusedWrites(p, { session: session.id, turn: turn.id, item: item.id }))
          await expect(write()).rejects.toBeInstanceOf(AgentStateError);
        if (env.caps.commitFault) {
          const restore = await env.failCommits(p);
          try {
            for (const write of committingWrites(p, session.id)) await expect(write()).rejects.toThrow();
          } finally {
            await restore();
          }
        }
        expect(await p.log.read({ stream: STATE_STREAM, afterSeq: start })).toEqual([]);
        expect(await p.log.head(STATE_STREAM)).toBe(start);
        expect(encodeSnapshot(await p.snapshot())).toBe(before);
        // The next write: the one event after the start, whatever position it takes.
        await p.memory.write({ content: 'after the rollbacks' });
      } finally {
        await reader.stop();
      }
      const events = await p.log.read({ stream: STATE_STREAM, afterSeq: start });
      expect(events.map((e) => [e.type, (e.payload as { item?: { content?: string } }).item?.content])).toEqual([['memory.written', 'after the rollbacks']]);
      expect(events[0]!.seq).toBeGreaterThan(start);
      expect(await reader.stop()).toEqual(events);
      if (subscriber) expect(await subscriber.stop(events[0]!.seq)).toEqual(events);
      expect(JSON.stringify(await p.log.read({ stream: STATE_STREAM }))).not.toContain('doomed');
      // The session's turn numbers go on from its last committed turn; the tables equal a replay of the log.
      expect((await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'next' })).seq).toBe(2);
      const replayed = await env.replay(p.log, { fromScratch: true });
      expect(encodeSnapshot(await replayed.snapshot())).toBe(encodeSnapshot(await p.snapshot()));
    }),
});
