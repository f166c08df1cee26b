/**
 * One of the concurrent writers of G9 and V9, the same in the test's process and in a writer
 * process of its own: turns on its own session and on a shared one, memory with and without keys,
 * outcomes on a shared skill, and now and then a write the store must refuse (a batch failing
 * midway on a taken turn id, a turn for a missing session, another id for a held key, a stale
 * `syncVersion`). Every write carries an operation id, so each event names the write that made it;
 * a retryable error is retried under it, as a user would.
 */
import type { Provider } from '@agentstate/core';
import { says } from './fixtures.js';

/** What a writer does, passed to a writer process as JSON. */
export interface WriterPlan {
  /** Starts every operation id and text of the writer. */
  name: string;
  /** How many writes it makes, refused ones included (at least 3). */
  writes: number;
  /** The session every writer appends to. */
  sharedSessionId: string;
  /** The slug of the skill every writer records outcomes on. */
  sharedSkill: string;
}

/** What was acknowledged: which of the checks' counts it adds to. */
export type AckKind = 'session' | 'turn' | 'shared-turn' | 'memory' | 'win' | 'loss';

/**
 * One line of a writer's report: a write acknowledged (with the id of its record), a write refused
 * as planned, or a write that went otherwise (a failure the check reports).
 */
export type WriterReport = { ack: string; kind: AckKind; id: string } | { refused: string; code: string } | { failed: string; code: string; message: string };

/** Attempts of a write that meets retryable errors before it counts as failed. */
const ATTEMPTS = 10;

function codeOf(error: unknown): string {
  return String((error as { code?: unknown } | null)?.code ?? (error as { name?: unknown } | null)?.name ?? 'unknown');
}

/**
 * A write the store refuses, of kind `which` (0–3): a batch whose second turn takes the id of
 * `firstTurn`, a turn for a missing session, another id for the held key `<name>-k0`, an upsert
 * with a stale `syncVersion`.
 */
function refusedWrite(p: Provider, plan: WriterPlan, ids: { own: string; firstTurn: string }, refused: string, which: number): Promise<unknown> {
  const batch = [says(`${refused} first of a batch`), { ...says(`${refused} a taken id`), id: ids.firstTurn }];
  if (which === 0) return p.sessions.appendTurns(ids.own, batch, { operationId: refused });
  if (which === 1) return p.sessions.appendTurn({ sessionId: `${plan.name}-missing`, role: 'user', content: refused, operationId: refused });
  if (which === 2) return p.memory.write({ id: refused, content: refused, key: `${plan.name}-k0`, operationId: refused });
  return p.skills.upsert({ slug: plan.sharedSkill, body: refused, syncVersion: 1_000_000, operationId: refused });
}

/** Runs the writes of `plan` on `p` one after another, telling `report` about each. */
export async function runMixedWriter(p: Provider, plan: WriterPlan, report: (line: WriterReport) => void): Promise<void> {
  const { name } = plan;
  const write = async (op: string, kind: AckKind, fn: () => Promise<{ id: string }>): Promise<string | undefined> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { id } = await fn();
        report({ ack: op, kind, id });
        return id;
      } catch (error) {
        if ((error as { retryable?: unknown }).retryable === true && attempt < ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
          continue;
        }
        report({ failed: op, code: codeOf(error), message: String((error as Error).message) });
        return undefined;
      }
    }
  };
  const refuse = async (op: string, fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn();
      report({ failed: op, code: 'accepted', message: 'a write the store must refuse was acknowledged' });
    } catch (error) {
      report({ refused: op, code: codeOf(error) });
    }
  };
  const op = (i: number) => `${name}-op-${i}`;
  const own = await write(op(0), 'session', () => p.sessions.create({ title: `writer ${name}`, operationId: op(0) }));
  if (own === undefined) return;
  const turn = (sessionId: string, i: number, kind: AckKind) =>
    write(op(i), kind, () => p.sessions.appendTurn({ sessionId, role: 'user', content: `${name} turn ${i}`, operationId: op(i) }));
  const firstTurn = await turn(own, 1, 'turn');
  // The key every refused write of the third kind tries to take with another id.
  await write(op(2), 'memory', () => p.memory.write({ content: `${name} fact 2`, key: `${name}-k0`, operationId: op(2) }));
  for (let i = 3; i < plan.writes; i += 1) {
    const [refused, step, success] = [`${name}-refused-${i}`, i % 8, i % 16 === 3];
    if (step === 0 || step === 7) await turn(own, i, 'turn');
    else if (step === 1 || step === 4) await turn(plan.sharedSessionId, i, 'shared-turn');
    else if (step === 2) await write(op(i), 'memory', () => p.memory.write({ content: `${name} fact ${i}`, key: `${name}-k${i % 3}`, operationId: op(i) }));
    else if (step === 3) await write(op(i), success ? 'win' : 'loss', () => p.skills.recordOutcome(plan.sharedSkill, { success, operationId: op(i) }));
    else if (step === 5) await refuse(refused, () => refusedWrite(p, plan, { own, firstTurn: firstTurn ?? own }, refused, (i >> 3) % 4));
    else await write(op(i), 'memory', () => p.memory.write({ content: `${name} note ${i}`, operationId: op(i) }));
  }
}
