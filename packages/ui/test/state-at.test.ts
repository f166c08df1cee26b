/**
 * The state as of a seq, behind the timeline's slider: equal to the state
 * the provider had when its head was there, whether a stored snapshot lies
 * before that seq (it is used) or after it (it must not be).
 */
import { createInMemoryProvider, type Snapshot } from '@agentstate/core';
import { countSnapshot, stateAt } from '@agentstate/ui';
import { describe, expect, it } from 'vitest';

describe('stateAt', () => {
  it('is the state the provider had at each seq, with snapshots before and after it', async () => {
    const db = createInMemoryProvider();
    const seen: Snapshot[] = [await db.snapshot()];
    const keep = async () => {
      seen.push(await db.snapshot());
    };
    const session = await db.sessions.create({ title: 'one' });
    await keep();
    await db.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hello' });
    await keep();
    await db.saveSnapshot(); // at seq 2
    const item = await db.memory.write({ content: 'a fact' });
    await keep();
    await db.skills.upsert({ slug: 'deploy', body: 'ship it' });
    await keep();
    await db.memory.delete(item.id);
    await keep();
    await db.saveSnapshot(); // at seq 5
    await db.sessions.delete(session.id);
    await keep();
    for (const expected of seen) {
      const past = await stateAt(db.log, expected.seq);
      expect(past, `as of seq ${expected.seq}`).toEqual(expected);
    }
    expect(countSnapshot(await stateAt(db.log, 4))).toEqual({
      seq: 4,
      sessions: { live: 1, deleted: 0 },
      turns: 1,
      skills: { live: 1, deleted: 0 },
      memory: { live: 1, deleted: 0 },
      checkpoints: 0,
    });
    // Turns of a deleted session are not counted as live.
    expect(countSnapshot(await stateAt(db.log, 6))).toMatchObject({ sessions: { live: 0, deleted: 1 }, turns: 0, memory: { live: 0, deleted: 1 } });
    // Beyond the head: the head.
    expect((await stateAt(db.log, 99)).seq).toBe(6);
  });
});
