/**
 * The session against the SDK's own MemorySession: random sequences of
 * every operation give the same results, the same failures and the same
 * history.
 */
import { createInMemoryProvider } from '@agentstate/core';
import { AgentStateSession } from '@agentstate/openai-agents';
import type { AgentInputItem, Session, SessionHistoryTransactionArgs } from '@openai/agents-core';
import { MemorySession } from '@openai/agents-core';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { anyItem } from './arbitraries.js';
import { expectSame } from './helpers.js';

type Op =
  | { kind: 'add'; items: AgentInputItem[] }
  | { kind: 'get'; limit: number | undefined }
  | { kind: 'pop' }
  | { kind: 'clear' }
  | { kind: 'append'; items: AgentInputItem[] }
  | { kind: 'replace'; keep: number; wrong: boolean; replacement: AgentInputItem[] }
  | { kind: 'retry' }
  | { kind: 'reuse'; items: AgentInputItem[] };

const items = fc.array(anyItem, { maxLength: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), items }),
  fc.record({ kind: fc.constant('get' as const), limit: fc.option(fc.integer({ min: -1, max: 6 }), { nil: undefined }) }),
  fc.constant({ kind: 'pop' as const }),
  fc.constant({ kind: 'clear' as const }),
  fc.record({ kind: fc.constant('append' as const), items }),
  fc.record({ kind: fc.constant('replace' as const), keep: fc.nat(4), wrong: fc.boolean(), replacement: items }),
  fc.constant({ kind: 'retry' as const }),
  fc.record({ kind: fc.constant('reuse' as const), items: fc.array(anyItem, { minLength: 1, maxLength: 2 }) }),
);

/** The outcome of a call: its value, or that it failed. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await call() };
  } catch {
    return 'failed';
  }
}

describe('AgentStateSession and the SDK MemorySession', () => {
  it('agree on every random sequence of operations', async () => {
    const provider = createInMemoryProvider();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 14 }), async (ops) => {
        const ours = new AgentStateSession(provider);
        const theirs = new MemorySession();
        // The last transaction that was applied since the last clear, which a retry may repeat.
        let last: SessionHistoryTransactionArgs | undefined;
        let next = 0;
        const both = async (call: (s: Session & Pick<MemorySession, 'applyHistoryTransaction'>) => Promise<unknown>) => {
          const [a, b] = [await outcome(() => call(ours)), await outcome(() => call(theirs))];
          expectSame(a, b);
          return a;
        };
        for (const o of ops) {
          if (o.kind === 'add') await both((s) => s.addItems(o.items));
          else if (o.kind === 'get') await both((s) => s.getItems(o.limit));
          else if (o.kind === 'pop') await both((s) => s.popItem());
          else if (o.kind === 'clear') {
            await both((s) => s.clearSession());
            last = undefined;
          } else if (o.kind === 'retry' || o.kind === 'reuse') {
            // Reusing an id for another transaction is refused only once the first wrote something.
            if (last === undefined || (o.kind === 'reuse' && (last.transaction.type !== 'append_items' || last.transaction.items.length === 0))) continue;
            const args: SessionHistoryTransactionArgs =
              o.kind === 'retry' ? last : { operationId: last.operationId, transaction: { type: 'append_items', items: o.items } };
            await both((s) => s.applyHistoryTransaction(args));
          } else {
            let transaction: SessionHistoryTransactionArgs['transaction'] = { type: 'append_items', items: o.kind === 'append' ? o.items : [] };
            if (o.kind === 'replace') {
              const history = await theirs.getItems();
              const suffix = history.slice(Math.max(history.length - o.keep, 0));
              const expectedSuffix = o.wrong ? [...suffix, { role: 'user' as const, content: 'not there' }] : suffix;
              transaction = { type: 'replace_suffix', expectedSuffix, replacement: o.replacement };
            }
            const args = { operationId: `op-${next++}`, transaction };
            if ((await both((s) => s.applyHistoryTransaction(args))) !== 'failed') last = args;
          }
        }
        expectSame(await ours.getItems(), await theirs.getItems());
      }),
      { numRuns: 150 },
    );
  });
});
