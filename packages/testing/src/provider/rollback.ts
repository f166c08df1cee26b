/** G8, G10: a write that fails or rolls back leaves no trace a reader sees (docs/contract.md §4, §7). */
import { AgentStateError, encodeSnapshot, type EventSourcedProvider, type Provider, STATE_STREAM } from '@agentstate/core';
import { expect } from 'vitest';
import { says } from '../suite/fixtures.js';
import { poll, subscribed } from '../suite/follow.js';
import { checks, fresh, freshLog, type ProviderCheck } from '../suite/harness.js';

/** Writes started together in each round: the first runs alone, the rest queue into groups. */
const WRITES = 24;
const ROUNDS = 3;

/** Starts one write of the round, of a kind chosen by `i`; each names itself `doomed`. */
function doomedWrite(p: Provider, sessionId: string, i: number): Promise<unknown> {
  if (i % 3 === 0) return p.memory.write({ content: `doomed memory ${i}` });
  if (i % 3 === 1) return p.sessions.appendTurn({ sessionId, role: 'user', content: `doomed turn ${i}` });
  return p.sessions.create({ title: `doomed session ${i}` });
}

/** What the reads return that a doomed write made. */
async function doomedSeen(p: Provider, sessionId: string): Promise<string[]> {
  const turns = (await p.sessions.turns(sessionId)).map((t) => t.content);
  const memory = (await p.memory.recall({ limit: 100 })).map((m) => m.content);
  const sessions = (await p.sessions.list()).map((s) => s.title ?? '');
  return [...turns, ...memory, ...sessions].filter((text) => text.startsWith('doomed'));
}

/** Writes the store refuses, each after doing part of its work: every one names itself `doomed`. */
function refusedWrites(p: EventSourcedProvider, ids: { session: string; turn: string; item: string }): (() => Promise<unknown>)[] {
  return [
    () => p.sessions.appendTurns(ids.session, [says('doomed first of a batch'), { ...says('doomed: the id is taken'), id: ids.turn }]),
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

export const rollbackChecks: ProviderCheck[] = [
  ...checks(['commitFault'], {
    'G8 read isolation under a failing commit: while every COMMIT fails, every write rejects and no reader ever returns one of them': fresh(async (p, env) => {
      const s = await p.sessions.create({ title: 'kept' });
      await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'kept turn' });
      const restore = await env.failCommits(p);
      const seen: string[] = [];
      let writing = true;
      const poll = async (): Promise<void> => {
        while (writing) seen.push(...(await doomedSeen(p, s.id)));
      };
      const readers = [poll(), poll(), poll()];
      const outcomes: PromiseSettledResult<unknown>[] = [];
      try {
        for (let round = 0; round < ROUNDS; round += 1)
          outcomes.push(...(await Promise.allSettled(Array.from({ length: WRITES }, (_, i) => doomedWrite(p, s.id, round * WRITES + i)))));
      } finally {
        writing = false;
        await Promise.all(readers);
        await restore();
      }
      expect([outcomes.map((o) => o.status), seen, await doomedSeen(p, s.id)]).toEqual([outcomes.map(() => 'rejected'), [], []]);
      // The failed writes left nothing behind: the next one goes on from where the last COMMIT left
      // the session.
      const next = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'after' });
      expect([next.seq, (await p.sessions.turns(s.id)).map((t) => t.content)]).toEqual([2, ['kept turn', 'after']]);
    }),
  }),
  ...checks(['eventSourced'], {
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
          expect([await p.log.read({ stream: STATE_STREAM, afterSeq: start }), await p.log.head(STATE_STREAM)]).toEqual([[], start]);
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
        // The session's turn numbers go on from its last committed turn; the tables equal a replay
        // of the log.
        expect((await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'next' })).seq).toBe(2);
        expect(encodeSnapshot(await (await env.replay(p.log, { fromScratch: true })).snapshot())).toBe(encodeSnapshot(await p.snapshot()));
      }),
  }),
];
