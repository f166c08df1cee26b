/**
 * The differential check: random operation sequences run on LangGraph's own
 * `InMemoryStore` and on an `AgentStateStore` give the same results (scores
 * and timestamps aside). Two documented differences are normalised: a
 * search without a query is compared as a set (the reference lists in
 * insertion order, this store newest update first), and the reference's
 * habit of listing a namespace after its last item is deleted is pruned.
 * The reference's `get` also hands out its stored object, which a put later
 * in the same batch changes in place; the reference here returns a copy, so
 * reads see the state before the batch's writes, as its batch intends.
 */
import type { Provider } from '@agentstate/core';
import type { BaseStore, Item, Operation } from '@langchain/langgraph-checkpoint';
import { InMemoryStore } from '@langchain/langgraph-checkpoint';
import fc from 'fast-check';
import { expect } from 'vitest';
import { AgentStateStore } from '../src/index.js';

const NAMESPACES = [['a'], ['a', 'b'], ['a', 'c'], ['b'], ['b', 'a', 'c'], ['c', 'b']];
const PREFIXES = [[], ['a'], ['a', 'b'], ['b'], ['*', 'b'], ['c']];
const KEYS = ['k1', 'k2', 'k3'];

const namespace = fc.constantFrom(...NAMESPACES);
const key = fc.constantFrom(...KEYS);
const value = fc.record(
  {
    n: fc.integer({ min: 0, max: 5 }),
    s: fc.constantFrom('x', 'y', 'z'),
    text: fc.constantFrom('red apple', 'green pear', 'blue sky'),
    nested: fc.record({ flag: fc.boolean() }),
  },
  { requiredKeys: ['text'] },
);
const numberCondition = fc.oneof(
  fc.integer({ min: -1, max: 6 }),
  fc.record({ $eq: fc.integer({ min: 0, max: 5 }) }, { requiredKeys: [] }),
  fc.record(
    {
      $gt: fc.integer({ min: -1, max: 6 }),
      $gte: fc.integer({ min: -1, max: 6 }),
      $lt: fc.integer({ min: -1, max: 6 }),
      $lte: fc.integer({ min: -1, max: 6 }),
      $ne: fc.integer({ min: 0, max: 5 }),
    },
    { requiredKeys: [] },
  ),
  fc.record({ $in: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }) }),
  fc.record({ $nin: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }) }),
);
const filter = fc.record({ n: numberCondition, s: fc.oneof(fc.constantFrom('x', 'y'), fc.record({ $ne: fc.constantFrom('x', 'y') })) }, { requiredKeys: [] });
const page = { limit: fc.integer({ min: 0, max: 12 }), offset: fc.integer({ min: 0, max: 4 }) };

const put = fc
  .record({ namespace, key, value: fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }) })
  .map((op): Operation => op);
const get = fc.record({ namespace, key }).map((op): Operation => op);
const search = fc
  .record({ namespacePrefix: fc.constantFrom(...PREFIXES.filter((p) => !p.includes('*'))), filter }, { requiredKeys: ['namespacePrefix'] })
  .map((op): Operation => ({ ...op, limit: 1000, offset: 0 }));
const list = fc
  .record(
    { prefix: fc.constantFrom(...PREFIXES), suffix: fc.constantFrom<string[]>(['b'], ['c'], ['*']), maxDepth: fc.integer({ min: 1, max: 3 }), ...page },
    { requiredKeys: ['limit', 'offset'] },
  )
  .map(
    ({ prefix, suffix, maxDepth, limit, offset }): Operation => ({
      matchConditions: [
        ...(prefix ? [{ matchType: 'prefix' as const, path: prefix }] : []),
        ...(suffix ? [{ matchType: 'suffix' as const, path: suffix }] : []),
      ],
      ...(maxDepth === undefined ? {} : { maxDepth }),
      limit,
      offset,
    }),
  );

/** Two writes of one key around reads of it: the reads see neither, the last write stays. */
const rewrite = fc.tuple(namespace, key, value, fc.option(value, { nil: null })).map(([ns, k, first, second]): Operation[] => [
  { namespace: ns, key: k, value: first },
  { namespace: ns, key: k },
  { namespacePrefix: ns, limit: 1000, offset: 0 },
  { namespace: ns, key: k, value: second },
]);

/** Batches of one operation (most), of two to four, and rewrites of one key. */
export const batches = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.array(fc.oneof(put, put, get, search, list), { minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.array(fc.oneof(put, get, search, list), { minLength: 2, maxLength: 4 }) },
    { weight: 1, arbitrary: rewrite },
  ),
  { minLength: 1, maxLength: 25 },
);

/** An item without its timestamps (and score), in a stable form. */
const plain = (item: Item | null): unknown => (item === null ? null : { namespace: item.namespace, key: item.key, value: item.value });

/** One result in a comparable form: search results as a sorted set. */
function comparable(op: Operation, result: unknown): unknown {
  if ('namespacePrefix' in op) {
    return (result as Item[])
      .map(plain)
      .map((entry) => JSON.stringify(entry))
      .sort();
  }
  if ('key' in op && !('value' in op)) return plain(result as Item | null);
  return result ?? null;
}

/** Drops the namespaces the reference keeps after their last item is deleted. */
function pruneEmptyNamespaces(reference: InMemoryStore): void {
  const data = (reference as unknown as { data: Map<string, Map<string, unknown>> }).data;
  for (const [name, items] of data) if (items.size === 0) data.delete(name);
}

/** LangGraph's InMemoryStore, its `get` answering with a copy of the stored item. */
export function referenceStore(): InMemoryStore {
  const reference = new InMemoryStore();
  const internals = reference as unknown as { getOperation(op: Operation): Item | null };
  const original = internals.getOperation.bind(reference);
  internals.getOperation = (op) => {
    const item = original(op);
    return item === null ? null : { ...item };
  };
  return reference;
}

/** Runs the batches on both stores and expects equal results after every batch. */
export async function runDifferential(store: BaseStore, reference: InMemoryStore, sequence: Operation[][]): Promise<void> {
  for (const [step, ops] of sequence.entries()) {
    const want = await reference.batch(ops);
    pruneEmptyNamespaces(reference);
    const got = await store.batch(ops);
    expect(
      got.map((r, i) => comparable(ops[i]!, r)),
      `batch ${step}: ${JSON.stringify(ops)}`,
    ).toEqual(want.map((r, i) => comparable(ops[i]!, r)));
  }
}

/** The property over fresh providers from `open`, closed after each run. */
export async function checkDifferential(open: () => Promise<Provider>, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(batches, async (sequence) => {
      const provider = await open();
      try {
        await runDifferential(new AgentStateStore(provider), referenceStore(), sequence);
      } finally {
        await provider.close();
      }
    }),
    { numRuns },
  );
}
