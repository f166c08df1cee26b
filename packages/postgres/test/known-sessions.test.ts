/**
 * What a process keeps of the sessions it appended to (`src/known-append.ts`):
 * the session as its own last append left it, the most recent 1,000, and a
 * hold-back after a failed guess that doubles with each failure, so that
 * many processes on one session seldom guess.
 */
import { describe, expect, it } from 'vitest';
import type { Session, Turn } from '@agentstate/core';
import { KnownSessions } from '../src/known-append.js';

const session = (id: string): Session => ({
  id,
  title: 't',
  model: '',
  metadata: {},
  scope: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  syncVersion: 3,
  originInstanceId: 'a',
  updatedHlc: { wall: 1, counter: 0 },
  lastWriterId: 'a',
  deleted: false,
});

const turn = (sessionId: string, seq: number): Turn => ({
  id: `${sessionId}-${seq}`,
  sessionId,
  seq,
  role: 'user',
  content: 'x',
  parts: [{ type: 'text', text: 'x' }],
  metadata: {},
  createdAt: '2026-01-01T00:00:01.000Z',
  syncVersion: 1,
  originInstanceId: 'b',
  updatedHlc: { wall: 2, counter: 0 },
  lastWriterId: 'b',
  deleted: false,
});

describe('KnownSessions', () => {
  it('keeps the session as the append left it: one version later, its clock, writer and time, and the turn as the last', () => {
    const known = new KnownSessions();
    known.note(session('s'), turn('s', 7), false);
    expect(known.get('s')).toEqual({
      session: { ...session('s'), syncVersion: 4, updatedHlc: { wall: 2, counter: 0 }, lastWriterId: 'b', updatedAt: '2026-01-01T00:00:01.000Z' },
      lastTurn: 7,
    });
  });

  it('keeps the 1,000 sessions appended to most recently', () => {
    const known = new KnownSessions();
    for (let i = 0; i < 1_001; i += 1) known.note(session(`s${i}`), turn(`s${i}`, 1), false);
    expect(known.get('s0')).toBeUndefined();
    expect(known.get('s1')).toBeDefined();
    known.note(session('s1'), turn('s1', 2), true);
    known.note(session('s1001'), turn('s1001', 1), false);
    expect([known.get('s1')?.lastTurn, known.get('s2')]).toEqual([2, undefined]);
  });

  it('reads a session for 1, 2, 4, … up to 32 appends after each guess there failed, and guesses at once after one that held', () => {
    const known = new KnownSessions();
    // How many appends that read the session pass before it is known again.
    const heldFor = (): number => {
      let reads = 0;
      while (known.get('s') === undefined) {
        known.note(session('s'), turn('s', reads + 1), false);
        reads += 1;
      }
      return reads - 1;
    };
    known.note(session('s'), turn('s', 1), false);
    const holds = [];
    for (let failures = 0; failures < 8; failures += 1) {
      known.forget('s', true);
      holds.push(heldFor());
    }
    expect(holds).toEqual([1, 2, 4, 8, 16, 32, 32, 32]);
    // A guess that held ends the hold-back; a failure after it holds back one append again.
    known.note(session('s'), turn('s', 99), true);
    known.forget('s', true);
    expect(heldFor()).toBe(1);
    // Forgotten for another reason: known again after the next append.
    known.forget('s', false);
    expect(heldFor()).toBe(0);
  });
});
