/**
 * A record's scope is fixed at its creation but for `sessions.update`: no
 * other live operation changes the scope of a session or a memory item
 * (property over random operation logs), and the fold refuses any other
 * session event, or any `memory.updated` event, that carries another scope,
 * with a `CorruptionError` naming its seq (`session.updated`: see
 * session-update-rules.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppendInput, LogEvent, Scope } from '@agentstate/core';
import { CorruptionError, createInMemoryProvider, EventTypes, InMemoryLog, ManualClock, replay, seededEntropy, STATE_STREAM } from '@agentstate/core';

const arbScope: fc.Arbitrary<Scope> = fc.array(fc.constantFrom('project:p', 'workspace:w', 'a', 'a/b', 'ü'), { maxLength: 3 });

type Op =
  | { kind: 'session'; scope: Scope }
  | { kind: 'append'; pick: number }
  | { kind: 'removeLast'; pick: number }
  | { kind: 'replace'; pick: number }
  | { kind: 'deleteSession'; pick: number }
  | { kind: 'write'; scope: Scope; key: string | null }
  | { kind: 'update'; pick: number; scope: Scope }
  | { kind: 'deleteItem'; pick: number };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  arbScope.map((scope) => ({ kind: 'session' as const, scope })),
  fc.nat().map((pick) => ({ kind: 'append' as const, pick })),
  fc.nat().map((pick) => ({ kind: 'removeLast' as const, pick })),
  fc.nat().map((pick) => ({ kind: 'replace' as const, pick })),
  fc.nat().map((pick) => ({ kind: 'deleteSession' as const, pick })),
  fc.record({ scope: arbScope, key: fc.constantFrom('k', null) }).map((o) => ({ kind: 'write' as const, ...o })),
  fc.record({ pick: fc.nat(), scope: arbScope }).map((o) => ({ kind: 'update' as const, ...o })),
  fc.nat().map((pick) => ({ kind: 'deleteItem' as const, pick })),
);

/** Runs `ops` on a fresh provider; returns the state stream. Failing calls (a deleted target) write nothing. */
async function liveRun(ops: readonly Op[]): Promise<LogEvent[]> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(5), instanceId: 'live' });
  const sessions: string[] = [];
  const items: string[] = [];
  const ignore = () => undefined;
  for (const op of ops) {
    clock.advance(1);
    const session = sessions.length > 0 && 'pick' in op ? sessions[op.pick % sessions.length]! : undefined;
    const item = items.length > 0 && 'pick' in op ? items[op.pick % items.length]! : undefined;
    switch (op.kind) {
      case 'session':
        sessions.push((await p.sessions.create({ scope: op.scope })).id);
        break;
      case 'append':
        if (session) await p.sessions.appendTurn({ sessionId: session, role: 'user', content: 'hello' }).catch(ignore);
        break;
      case 'removeLast':
        if (session) await p.sessions.removeLastTurn(session).catch(ignore);
        break;
      case 'replace':
        if (session) await p.sessions.replaceSuffix(session, { expected: [], turns: [{ role: 'assistant', content: 'more' }] }).catch(ignore);
        break;
      case 'deleteSession':
        if (session) await p.sessions.delete(session).catch(ignore);
        break;
      case 'write':
        items.push((await p.memory.write({ content: 'fact', scope: op.scope, key: op.key })).id);
        break;
      case 'update':
        // A scope given to an update is no field of it: the item keeps its own.
        if (item) await p.memory.update(item, { content: 'changed', scope: op.scope } as never).catch(ignore);
        break;
      case 'deleteItem':
        if (item) await p.memory.delete(item).catch(ignore);
        break;
    }
  }
  return p.log.read({ stream: STATE_STREAM });
}

async function logOf(events: readonly LogEvent[]): Promise<InMemoryLog> {
  const log = new InMemoryLog();
  for (const { seq: _seq, ...input } of events) await log.append(input as AppendInput);
  return log;
}

/** The record an event carries whose scope is fixed: the session of a session event, the item of a memory event. */
function scoped(event: LogEvent): { id: string; scope: Scope } | undefined {
  const payload = event.payload as { session?: { id: string; scope: Scope }; item?: { id: string; scope: Scope } };
  return payload.session ?? payload.item;
}

const SESSION_CHANGES: readonly string[] = [EventTypes.TurnAppended, EventTypes.SessionDeleted, EventTypes.TurnsRemoved, EventTypes.SuffixReplaced];

describe('the scope of a record', () => {
  it('is never changed by a live operation, memory updates given a scope included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { maxLength: 20 }), async (ops) => {
        const events = await liveRun(ops);
        const first = new Map<string, string>();
        for (const event of events) {
          const record = scoped(event);
          if (!record) continue;
          const scope = JSON.stringify(record.scope);
          expect(first.get(record.id) ?? scope, `${event.type} at seq ${event.seq}`).toBe(scope);
          first.set(record.id, scope);
        }
        await replay(await logOf(events));
      }),
      { numRuns: 60 },
    );
  });

  it('is refused by the fold when any session event, or a memory.updated event, carries another one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { minLength: 1, maxLength: 20 }), fc.nat(), arbScope, async (ops, pick, other) => {
        const events = await liveRun(ops);
        // A session.turn_appended no longer carries its session (schema version 3), so it has no scope to forge.
        const targets = events.filter((e) => (SESSION_CHANGES.includes(e.type) || e.type === EventTypes.MemoryUpdated) && scoped(e) !== undefined);
        fc.pre(targets.length > 0);
        const target = targets[pick % targets.length]!;
        const payload = structuredClone(target.payload) as { session?: { scope: Scope }; item?: { scope: Scope } };
        const record = payload.session ?? payload.item!;
        fc.pre(JSON.stringify(record.scope) !== JSON.stringify(other));
        record.scope = other;
        const forged = events.map((e) => (e === target ? { ...e, payload } : e));
        const error = await replay(await logOf(forged)).catch((e: unknown) => e);
        expect(error, target.type).toBeInstanceOf(CorruptionError);
        expect(error).toMatchObject({ stream: STATE_STREAM, seq: target.seq, message: expect.stringMatching(/the scope changed/) });
      }),
      { numRuns: 150 },
    );
  });
});
