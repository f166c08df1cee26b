/**
 * Checkpoints: the fold rules of `checkpoint.saved`, `checkpoint.writes_saved`
 * and `checkpoint.thread_deleted` as properties (a model of the saver
 * semantics against the in-memory provider; every stamped change folds, forged
 * ones are refused).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { JsonValue, StateChange } from '@agentstate/core';
import {
  CorruptionError,
  createInMemoryProvider,
  decodeSnapshot,
  decodeStateEvent,
  encodeSnapshot,
  EventTypes,
  ManualClock,
  seededEntropy,
  STATE_STREAM,
} from '@agentstate/core';
import { InMemoryState } from '@agentstate/core/backend';

const T0 = Date.UTC(2026, 0, 1);

type Step =
  | { kind: 'put'; thread: string; cp: string; value: number }
  | { kind: 'writes'; thread: string; cp: string; task: string; writes: { idx: number; value: number }[] }
  | { kind: 'delete'; thread: string };

const thread = fc.constantFrom('t1', 't2');
const cp = fc.constantFrom('01', '02', '03');
const arbStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), thread, cp, value: fc.nat(99) }),
  fc.record({
    kind: fc.constant('writes' as const),
    thread,
    cp,
    task: fc.constantFrom('a', 'b'),
    writes: fc.uniqueArray(fc.record({ idx: fc.integer({ min: -2, max: 2 }), value: fc.nat(99) }), { selector: (w) => w.idx, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), thread }),
);

/** Runs the steps on a fresh provider and on a plain model of the saver semantics. */
async function run(steps: readonly Step[]) {
  const clock = new ManualClock(T0);
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(5), instanceId: 'live' });
  const model = new Map<string, { value: number; version: number }>();
  const writes = new Map<string, JsonValue>();
  for (const step of steps) {
    clock.advance(1);
    if (step.kind === 'put') {
      await p.checkpoints.put({ threadId: step.thread, checkpointId: step.cp, checkpoint: step.value });
      const key = `${step.thread}/${step.cp}`;
      model.set(key, { value: step.value, version: (model.get(key)?.version ?? 0) + 1 });
    } else if (step.kind === 'writes') {
      await p.checkpoints.putWrites({
        threadId: step.thread,
        checkpointId: step.cp,
        taskId: step.task,
        writes: step.writes.map((w) => ({ ...w, channel: 'c' })),
      });
      for (const w of step.writes) {
        const key = `${step.thread}/${step.cp}/${step.task}/${w.idx}`;
        if (w.idx < 0 || !writes.has(key)) writes.set(key, w.value);
      }
    } else {
      await p.checkpoints.deleteThread(step.thread);
      for (const key of [...model.keys()]) if (key.startsWith(`${step.thread}/`)) model.delete(key);
      for (const key of [...writes.keys()]) if (key.startsWith(`${step.thread}/`)) writes.delete(key);
    }
  }
  return { p, model, writes };
}

describe('checkpoint fold rules', () => {
  it('match the saver model: non-negative idx never overwritten, negative replaced, re-saves replace, a deleted thread reads empty', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbStep, { maxLength: 25 }), async (steps) => {
        const { p, model, writes } = await run(steps);
        const snapshot = await p.snapshot();
        expect(new Map(snapshot.checkpoints.map((c) => [`${c.threadId}/${c.checkpointId}`, { value: c.checkpoint, version: c.syncVersion }]))).toEqual(model);
        expect(new Map(snapshot.checkpointWrites.map((w) => [`${w.threadId}/${w.checkpointId}/${w.taskId}/${w.idx}`, w.value]))).toEqual(writes);
        for (const t of ['t1', 't2']) {
          const kept = [...model.keys()].some((k) => k.startsWith(`${t}/`)) || [...writes.keys()].some((k) => k.startsWith(`${t}/`));
          if (!kept) expect(await p.checkpoints.list({ threadId: t })).toEqual([]);
        }
        // Every stamped change folds again, from the log alone.
        const state = new InMemoryState();
        for (const event of await p.log.read({ stream: STATE_STREAM })) state.apply(decodeStateEvent(event), event.seq);
        expect(state.capture()).toEqual(snapshot);
        // And a snapshot restores to the same projection.
        const restored = new InMemoryState();
        restored.restore(decodeSnapshot(encodeSnapshot(snapshot), snapshot.seq));
        expect(restored.capture()).toEqual(snapshot);
      }),
      { numRuns: 60 },
    );
  });

  it('refuse a rewritten non-negative idx, a deletion of an empty thread, and a re-save that changes id or skips a version', async () => {
    const { p } = await run([
      { kind: 'put', thread: 't1', cp: '01', value: 1 },
      { kind: 'writes', thread: 't1', cp: '01', task: 'a', writes: [{ idx: 0, value: 1 }] },
    ]);
    const events = await p.log.read({ stream: STATE_STREAM });
    const [saved, written] = events.map((e) => decodeStateEvent(e)) as [
      Extract<StateChange, { type: 'checkpoint.saved' }>,
      Extract<StateChange, { type: 'checkpoint.writes_saved' }>,
    ];
    const folded = (): InMemoryState => {
      const state = new InMemoryState();
      state.apply(saved, 1);
      state.apply(written, 2);
      return state;
    };
    const forged: [StateChange, RegExp][] = [
      [written, /never overwritten/],
      [{ type: EventTypes.CheckpointThreadDeleted, payload: { threadId: 'none' } }, /no checkpoints or writes/],
      [
        {
          type: EventTypes.CheckpointSaved,
          payload: { checkpoint: { ...saved.payload.checkpoint, syncVersion: 2, id: 'other', updatedHlc: { wall: T0 + 9, counter: 0 } } },
        },
        /id changed/,
      ],
      [{ type: EventTypes.CheckpointSaved, payload: { checkpoint: { ...saved.payload.checkpoint, syncVersion: 3 } } }, /syncVersion 3 follows 1/],
      [
        {
          type: EventTypes.CheckpointWritesSaved,
          payload: {
            writes: [
              { ...written.payload.writes[0]!, idx: 7 },
              { ...written.payload.writes[0]!, idx: 5, taskId: 'b' },
            ],
          },
        },
        /not all of one task/,
      ],
    ];
    for (const [change, message] of forged) {
      const state = folded();
      const before = state.capture();
      expect(() => state.apply(change, 3)).toThrow(CorruptionError);
      expect(() => state.apply(change, 3)).toThrow(message);
      expect(state.capture()).toEqual(before);
    }
  });
});
