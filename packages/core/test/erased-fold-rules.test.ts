/**
 * The fold's erased-form rule (docs/contract.md §12): a record may arrive in its erased form after an
 * intact version of it (a sync delivers a purge's rewritten events before the purge); the rules then
 * compare it with the erased form of what it follows, so every stamped log folds with any suffix of
 * its events erased, and a forgery is still refused.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { StateChange } from '@agentstate/core';
import { CorruptionError, createInMemoryProvider, decodeStateEvent, ManualClock, seededEntropy, STATE_STREAM } from '@agentstate/core';
import { changeRecordIds, InMemoryState } from '@agentstate/core/backend';
import { redactChange } from '../src/log/redact.js';

/** `change` with every record it carries erased, as a purge of them all would rewrite it. */
const eraseChange = (change: StateChange): StateChange => redactChange(change, new Set(changeRecordIds(change)), 1)?.change ?? change;

const T0 = Date.UTC(2026, 0, 1);

/** A live log of a session with turns, a memory item and a skill, each changed, then deleted, decoded. */
async function liveChanges(turns: number, updates: number): Promise<StateChange[]> {
  const clock = new ManualClock(T0);
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(5), instanceId: 'live' });
  const session = await p.sessions.create({ title: 'secret chat', metadata: { k: 1 } });
  for (let i = 0; i < turns; i += 1) await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `secret ${i}` });
  const item = await p.memory.write({ content: 'secret fact', key: 'k', metadata: { n: 1 } });
  for (let i = 0; i < updates; i += 1) await p.memory.update(item.id, { content: `secret fact ${i}` });
  await p.skills.upsert({ slug: 's', name: 'secret skill', body: 'secret steps' });
  await p.skills.recordOutcome('s', { success: true });
  if (turns > 0) await p.sessions.removeLastTurn(session.id);
  await p.memory.delete(item.id);
  await p.skills.delete('s');
  await p.sessions.delete(session.id);
  return (await p.log.read({ stream: STATE_STREAM })).map((e) => decodeStateEvent(e));
}

/** Folds `changes`, every event from `from` on with every record it carries erased. */
function foldErasedFrom(changes: readonly StateChange[], from: number): void {
  const state = new InMemoryState();
  changes.forEach((change, i) => {
    state.apply(i >= from ? eraseChange(change) : change, i + 1);
  });
}

describe('the erased-form rule', () => {
  it('folds every stamped log with any suffix of its events erased', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(3), fc.nat(3), fc.nat(30), async (turns, updates, cut) => {
        const changes = await liveChanges(turns, updates);
        expect(() => foldErasedFrom(changes, cut % (changes.length + 1))).not.toThrow();
      }),
      { numRuns: 30 },
    );
  });

  it('still refuses an erased record whose envelope or kept fields were forged', async () => {
    const changes = await liveChanges(1, 1);
    const last = changes.length - 1;
    const erased = eraseChange(changes[last]!) as StateChange & { payload: { session: { model: string } } };
    const forged = { ...erased, payload: { ...erased.payload, session: { ...erased.payload.session, model: 'another model' } } } as StateChange;
    expect(() => foldErasedFrom([...changes.slice(0, last), forged], last + 1)).toThrow(CorruptionError);
  });
});
