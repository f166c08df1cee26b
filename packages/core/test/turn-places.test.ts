import { describe, expect, it } from 'vitest';
import { ConflictError, createInMemoryProvider, ManualClock, seededEntropy } from '../src/index.js';

describe('turns found by id after appends that chose none', () => {
  it('refuses a reused id, finds the turn to purge, and keeps finding later turns', async () => {
    const p = createInMemoryProvider({ clock: new ManualClock(), entropy: seededEntropy(5) });
    const a = await p.sessions.create({});
    const b = await p.sessions.create({});
    const turns = [];
    for (let i = 0; i < 5; i += 1) turns.push(await p.sessions.appendTurn({ sessionId: a.id, role: 'user', content: `turn ${i}` }));
    const reused = p.sessions.appendTurn({ sessionId: b.id, role: 'user', content: 'again', id: turns[2]!.id });
    await expect(reused).rejects.toBeInstanceOf(ConflictError);
    await expect(p.sessions.appendTurns(b.id, [{ role: 'user', content: 'again', id: turns[4]!.id }])).rejects.toBeInstanceOf(ConflictError);
    // Turns appended after a look-up by id are found as well.
    const later = await p.sessions.appendTurn({ sessionId: a.id, role: 'assistant', content: 'later' });
    await expect(p.sessions.appendTurn({ sessionId: b.id, role: 'user', content: 'x', id: later.id })).rejects.toBeInstanceOf(ConflictError);
    const purged = await p.purge({ id: turns[1]!.id, reason: 'test' });
    expect(purged.turns).toEqual([turns[1]!.id]);
    expect((await p.history(later.id)).length).toBe(1);
  });
});
