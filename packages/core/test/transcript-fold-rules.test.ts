/**
 * The fold's rules for the transcript events (`session.turns_removed`,
 * `session.suffix_replaced`): every log the live operations write folds,
 * and any one forged change to one of those events is refused with a
 * `CorruptionError` naming its seq.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppendInput, LogEvent, Turn } from '@agentstate/core';
import { CorruptionError, createInMemoryProvider, InMemoryLog, ManualClock, replay, seededEntropy, STATE_STREAM } from '@agentstate/core';

type Op = { kind: 'append' } | { kind: 'removeLast' } | { kind: 'clear' } | { kind: 'replace'; keep: number; add: number };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: 'append' as const }),
  fc.constant({ kind: 'removeLast' as const }),
  fc.constant({ kind: 'clear' as const }),
  fc.record({ keep: fc.nat(3), add: fc.nat(3) }).map((o) => ({ kind: 'replace' as const, ...o })),
);

/** Runs `ops` on a fresh provider and returns its state stream and final transcript. */
async function liveRun(ops: readonly Op[]): Promise<{ events: LogEvent[]; transcript: Turn[] }> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(3), instanceId: 'live' });
  await p.sessions.create({ id: 's' });
  let n = 0;
  for (const op of ops) {
    clock.advance(1);
    n += 1;
    const live = await p.sessions.turns('s');
    switch (op.kind) {
      case 'append':
        await p.sessions.appendTurn({ sessionId: 's', role: 'user', parts: [{ type: 'text', text: `t${n}` }], metadata: { n } });
        break;
      case 'removeLast':
        if (live.length > 0) await p.sessions.removeLastTurn('s');
        break;
      case 'clear':
        await p.sessions.clear('s');
        break;
      case 'replace': {
        const expected = live.slice(Math.min(op.keep, live.length)).map((t) => t.id);
        const turns = Array.from({ length: op.add }, (_, i) => ({ role: 'assistant' as const, content: `r${n}.${i}` }));
        await p.sessions.replaceSuffix('s', { expected, turns });
        break;
      }
    }
  }
  return { events: await p.log.read({ stream: STATE_STREAM }), transcript: await p.sessions.turns('s') };
}

async function logOf(events: readonly LogEvent[]): Promise<InMemoryLog> {
  const log = new InMemoryLog();
  for (const { seq: _seq, ...input } of events) await log.append(input as AppendInput);
  return log;
}

interface TranscriptPayload {
  session: { syncVersion: number; updatedAt: string; metadata: Record<string, unknown> };
  turns?: Turn[];
  removed?: Turn[];
  added?: Turn[];
}

/** Forgeries of a transcript event's payload; each returns false when it does not apply to this payload. */
const FORGERIES: Record<string, (p: TranscriptPayload) => boolean> = {
  'session syncVersion skips': (p) => {
    p.session.syncVersion += 1;
    return true;
  },
  'session metadata changes': (p) => {
    p.session.metadata = { forged: true };
    return true;
  },
  'session updatedAt moves back': (p) => {
    p.session.updatedAt = '2000-01-01T00:00:00.000Z';
    return true;
  },
  'a tombstone is not deleted': (p) => tombstone(p, (t) => (t.deleted = false)),
  'a tombstone skips a version': (p) => tombstone(p, (t) => (t.syncVersion += 1)),
  'a tombstone changes its content': (p) => tombstone(p, (t) => (t.content += '!')),
  'a tombstone changes its parts': (p) => tombstone(p, (t) => t.parts.push({ type: 'text', text: 'x' })),
  'a tombstone keeps an older clock': (p) => tombstone(p, (t) => (t.updatedHlc = { wall: 1, counter: 0 })),
  // With one removed turn left out of two or more, the rest is no longer the live suffix.
  'the newest removed turn is left live': (p) => {
    const list = p.turns ?? p.removed;
    if (!list || list.length < 2) return false;
    list.pop();
    return true;
  },
  'an added turn skips a seq': (p) => added(p, (t) => (t.seq += 1)),
  'an added turn is born deleted': (p) => added(p, (t) => (t.deleted = true)),
  'an added turn reuses a removed id': (p) => {
    const first = p.added?.[0];
    const gone = p.removed?.[0];
    if (!first || !gone) return false;
    first.id = gone.id;
    return true;
  },
};

function tombstone(p: TranscriptPayload, change: (t: Turn) => void): boolean {
  const list = p.turns ?? p.removed;
  const last = list?.[list.length - 1];
  if (!last) return false;
  change(last);
  return true;
}

function added(p: TranscriptPayload, change: (t: Turn) => void): boolean {
  const first = p.added?.[0];
  if (!first) return false;
  change(first);
  return true;
}

const isTranscriptEvent = (e: LogEvent) => e.type === 'session.turns_removed' || e.type === 'session.suffix_replaced';

describe('the transcript fold rules', () => {
  it('fold every log the live transcript operations write', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { maxLength: 12 }), async (ops) => {
        const { events, transcript } = await liveRun(ops);
        const replayed = await replay(await logOf(events));
        expect(await replayed.sessions.turns('s')).toEqual(transcript);
      }),
      { numRuns: 40 },
    );
  });

  it('refuse any one forged transcript event with a CorruptionError naming its seq', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { minLength: 1, maxLength: 12 }), fc.nat(), fc.constantFrom(...Object.keys(FORGERIES)), async (ops, pick, forgery) => {
        const { events } = await liveRun(ops);
        const targets = events.filter(isTranscriptEvent);
        fc.pre(targets.length > 0);
        const target = targets[pick % targets.length]!;
        const payload = structuredClone(target.payload) as TranscriptPayload;
        fc.pre(FORGERIES[forgery]!(payload));
        const forged = events.map((e) => (e === target ? { ...e, payload } : e));
        const error = await replay(await logOf(forged)).catch((e: unknown) => e);
        expect(error, forgery).toBeInstanceOf(CorruptionError);
        expect(error).toMatchObject({ stream: STATE_STREAM, seq: target.seq });
      }),
      { numRuns: 150 },
    );
  });
});
