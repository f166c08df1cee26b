/** G8: readers see only committed writes (docs/contract.md §4, "Group commit"). */
import type { Provider } from '@agentstate/core';
import { expect } from 'vitest';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, fresh } from '../suite/harness.js';

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

export const isolationChecks: ProviderCheck[] = checks(['commitFault'], {
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
    expect(outcomes.map((o) => o.status)).toEqual(outcomes.map(() => 'rejected'));
    expect(seen).toEqual([]);
    expect(await doomedSeen(p, s.id)).toEqual([]);
    // The failed writes left nothing behind: the next one goes on from where the last COMMIT left the session.
    const next = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'after' });
    expect(next.seq).toBe(2);
    expect((await p.sessions.turns(s.id)).map((t) => t.content)).toEqual(['kept turn', 'after']);
  }),
});
