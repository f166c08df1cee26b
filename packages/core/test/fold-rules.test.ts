/**
 * The fold's rules: replaying a log refuses, with a `CorruptionError` naming
 * the seq, any change the stamper could not have produced (the same step
 * import and verify take). That every log of live operations still folds is
 * the model test's replay check.
 */
import { describe, expect, it } from 'vitest';
import type { AppendInput, LogEvent } from '@agentstate/core';
import {
  CorruptionError,
  ManualClock,
  InMemoryLog,
  STATE_STREAM,
  createInMemoryProvider,
  decodeStateEvent,
  encodeSnapshot,
  replay,
  seededEntropy,
} from '@agentstate/core';
import { InMemoryState } from '@agentstate/core/backend';

async function liveLog(): Promise<LogEvent[]> {
  const p = createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(1), instanceId: 'live' });
  await p.sessions.create({ id: 's1' });
  await p.sessions.appendTurn({ sessionId: 's1', role: 'user', content: 'one' });
  await p.sessions.appendTurn({ sessionId: 's1', role: 'user', content: 'two' });
  return p.log.read({ stream: STATE_STREAM });
}

/** A bare log holding `events` as given (renumbered by the log). */
async function logOf(events: readonly LogEvent[]): Promise<InMemoryLog> {
  const log = new InMemoryLog();
  for (const { seq: _seq, ...input } of events) await log.append(input as AppendInput);
  return log;
}

describe('the fold', () => {
  it('refuses a duplicated turn seq with a CorruptionError naming the seq, from replay and from apply', async () => {
    const [created, turn1, turn2] = await liveLog();
    const forged = { ...turn2!, payload: structuredClone(turn2!.payload) as { turn: { seq: number } } };
    forged.payload.turn.seq = 1;
    const error = await replay(await logOf([created!, turn1!, forged])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptionError);
    expect(error).toMatchObject({ stream: STATE_STREAM, seq: 3 });
    expect((error as Error).message).toBe('corrupt state#3: session.turn_appended: turn seq 1 of session "s1", expected 2');

    const state = new InMemoryState();
    state.apply(decodeStateEvent(created!), 1);
    state.apply(decodeStateEvent(turn1!), 2);
    const before = encodeSnapshot(state.capture());
    expect(() => state.apply(decodeStateEvent({ ...forged, seq: 3 }), 3)).toThrow(CorruptionError);
    expect(encodeSnapshot(state.capture())).toBe(before);
  });
});
