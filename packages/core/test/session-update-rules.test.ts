/**
 * `session.updated` (docs/contract.md §7): random runs of session writes,
 * updates with fresh and stale `syncVersion`s among them, replay to the live
 * state; and the fold refuses a `session.updated` event the stamper could not
 * have written (another model or creation, a version skipped or repeated, a
 * tombstone, `updatedAt` moved back, a session that is not live) with a
 * `CorruptionError` naming its seq.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppendInput, LogEvent, Scope, Session } from '@agentstate/core';
import {
  ConflictError,
  CorruptionError,
  createInMemoryProvider,
  encodeSnapshot,
  EventTypes,
  InMemoryLog,
  ManualClock,
  NotFoundError,
  replay,
  seededEntropy,
  STATE_STREAM,
} from '@agentstate/core';

const arbScope: fc.Arbitrary<Scope> = fc.array(fc.constantFrom('users', 'u1', 'u2', 'ü'), { maxLength: 3 });

type Op =
  | { kind: 'create'; scope: Scope }
  | { kind: 'append'; pick: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'update'; pick: number; title?: string; metadata?: { n: number }; scope?: Scope; stale: boolean };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  arbScope.map((scope) => ({ kind: 'create' as const, scope })),
  fc.nat().map((pick) => ({ kind: 'append' as const, pick })),
  fc.nat().map((pick) => ({ kind: 'delete' as const, pick })),
  fc
    .record(
      { pick: fc.nat(), title: fc.string({ maxLength: 8 }), metadata: fc.record({ n: fc.integer() }), scope: arbScope, stale: fc.boolean() },
      { requiredKeys: ['pick', 'stale'] },
    )
    .map((o) => ({ kind: 'update' as const, ...o })),
);

/** Runs `ops` on a fresh provider; returns it. A refused update (stale, or a deleted session) writes nothing. */
async function liveRun(ops: readonly Op[]) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(7), instanceId: 'live' });
  const sessions: string[] = [];
  for (const op of ops) {
    clock.advance(1);
    const id = sessions.length > 0 && 'pick' in op ? sessions[op.pick % sessions.length]! : undefined;
    if (op.kind === 'create') sessions.push((await p.sessions.create({ scope: op.scope, model: 'm' })).id);
    else if (id === undefined) continue;
    else if (op.kind === 'append') await p.sessions.appendTurn({ sessionId: id, role: 'user', content: 'hi' }).catch(() => undefined);
    else if (op.kind === 'delete') await p.sessions.delete(id).catch(() => undefined);
    else {
      const { pick: _pick, kind: _kind, stale, ...patch } = op;
      const stored = await p.sessions.getAny(id);
      const head = await p.log.head(STATE_STREAM);
      const outcome = await p.sessions.update(id, { ...patch, syncVersion: stale ? stored.syncVersion + 1 : stored.syncVersion }).catch((e: unknown) => e);
      if (stored.deleted) expect(outcome).toBeInstanceOf(NotFoundError);
      else if (stale) expect(outcome).toBeInstanceOf(ConflictError);
      else expect(outcome).toMatchObject({ ...patch, model: 'm', syncVersion: stored.syncVersion + 1, createdAt: stored.createdAt });
      expect(await p.log.head(STATE_STREAM)).toBe(head + (outcome instanceof Error ? 0 : 1));
    }
  }
  return p;
}

async function logOf(events: readonly LogEvent[]): Promise<InMemoryLog> {
  const log = new InMemoryLog();
  for (const { seq: _seq, ...input } of events) await log.append(input as AppendInput);
  return log;
}

/**
 * Ways to forge a stamped `session.updated` post-image, given the version it
 * replaced, each with the words of the rule it breaks; undefined where it does not apply.
 */
const FORGERIES: Record<string, [(s: Session, before: Session) => Session | undefined, RegExp]> = {
  model: [(s) => ({ ...s, model: `${s.model}x` }), /model changed/],
  createdAt: [(s) => ({ ...s, createdAt: '2000-01-01T00:00:00.000Z', updatedAt: s.updatedAt }), /createdAt changed/],
  'version skipped': [(s) => ({ ...s, syncVersion: s.syncVersion + 1 }), /syncVersion \d+ follows/],
  'version repeated': [(s) => ({ ...s, syncVersion: s.syncVersion - 1 }), /syncVersion \d+ follows/],
  tombstone: [(s) => ({ ...s, deleted: true }), /an update that is a tombstone/],
  'updatedAt back': [(s, before) => (before.updatedAt > before.createdAt ? { ...s, updatedAt: before.createdAt } : undefined), /updatedAt moved back/],
  'another session': [(s) => ({ ...s, id: `${s.id}-other` }), /does not exist or is deleted/],
};

describe('session.updated', () => {
  it('replays to the live state over random runs of session writes and updates', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { maxLength: 24 }), async (ops) => {
        const p = await liveRun(ops);
        const again = await replay(await logOf(await p.log.read({ stream: STATE_STREAM })), { fromScratch: true });
        expect(encodeSnapshot(await again.snapshot())).toBe(encodeSnapshot(await p.snapshot()));
      }),
      { numRuns: 60 },
    );
  });

  it('is refused by the fold when it could not have been stamped', async () => {
    const names = Object.keys(FORGERIES);
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { minLength: 1, maxLength: 24 }), fc.nat(), fc.constantFrom(...names), async (ops, pick, name) => {
        const events = await (await liveRun(ops)).log.read({ stream: STATE_STREAM });
        const targets = events.filter((e) => e.type === EventTypes.SessionUpdated);
        fc.pre(targets.length > 0);
        const target = targets[pick % targets.length]!;
        const session = (target.payload as { session: Session }).session;
        const before = (await (await replay(await logOf(events.filter((e) => e.seq < target.seq)))).sessions.getAny(session.id)) as Session;
        const [forge, rule] = FORGERIES[name]!;
        const forgery = forge(session, before);
        fc.pre(forgery !== undefined);
        const forged = events.map((e) => (e === target ? { ...e, payload: { session: forgery } } : e));
        const error = await replay(await logOf(forged)).catch((e: unknown) => e);
        expect(error, name).toBeInstanceOf(CorruptionError);
        expect(error).toMatchObject({ stream: STATE_STREAM, seq: target.seq, message: expect.stringMatching(rule) });
      }),
      { numRuns: 120 },
    );
  });
});
