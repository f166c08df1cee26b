/**
 * Sequences of store operations for model-based and differential tests: generate a list with
 * {@link arbOperations}, run it with {@link runOperations} against two providers (say, a backend
 * and the in-memory reference, with equal clocks and seeded entropy), and compare the outcomes and
 * snapshots. Sessions and memory items are referred to by the order they were created in, so every
 * generated sequence is runnable.
 */
import type { ManualClock, Provider } from '@agentstate/core';
import { isAgentStateError, TURN_ROLES } from '@agentstate/core';
import fc from 'fast-check';
import { arbCreateSessionInput, arbUpdateMemoryInput, arbUpdateSessionInput, arbUpsertSkillInput, arbWriteMemoryInput } from './inputs.js';
import { arbWhere } from './metadata.js';
import { arbScope, arbSlug } from './records.js';
import { arbQuery, arbText } from './text.js';

/** A reference to the n-th session (or memory item) created so far, wrapping around; `-1` names one that does not exist. */
export type Ref = number;

const ref = (): fc.Arbitrary<Ref> => fc.integer({ min: -1, max: 20 });
const optionalScope = () => fc.option(arbScope(), { nil: undefined });

/** Each kind of store call: the arbitrary of its fields, and how many times as often as the rarest it is drawn (writes more often than reads). */
const OPERATIONS = {
  createSession: [fc.record({ input: arbCreateSessionInput() }), 3],
  appendTurn: [fc.record({ session: ref(), role: fc.constantFrom(...TURN_ROLES), content: arbText() }), 4],
  deleteSession: [fc.record({ session: ref() }), 1],
  updateSession: [fc.record({ session: ref(), input: arbUpdateSessionInput() }), 2],
  turns: [fc.record({ session: ref(), afterSeq: fc.nat(5), limit: fc.nat(5) }), 1],
  listSessions: [fc.record({ offset: fc.nat(3), limit: fc.nat(3), scope: optionalScope(), includeDescendants: fc.boolean() }), 1],
  namespaces: [fc.record({ prefix: optionalScope(), maxDepth: fc.option(fc.nat(3), { nil: undefined }) }), 1],
  upsertSkill: [fc.record({ input: arbUpsertSkillInput() }), 4],
  recordOutcome: [fc.record({ slug: arbSlug(), success: fc.boolean(), scope: optionalScope() }), 2],
  deleteSkill: [fc.record({ slug: arbSlug(), scope: optionalScope() }), 1],
  getSkill: [fc.record({ slug: arbSlug(), scope: optionalScope() }), 1],
  listSkills: [fc.record({ scope: arbScope(), includeDescendants: fc.boolean() }), 1],
  searchSkills: [fc.record({ query: arbQuery(), limit: fc.nat(3) }), 1],
  writeMemory: [fc.record({ input: arbWriteMemoryInput() }), 3],
  deleteMemory: [fc.record({ item: ref() }), 1],
  getMemory: [fc.record({ item: ref() }), 1],
  updateMemory: [fc.record({ item: ref(), input: arbUpdateMemoryInput() }), 2],
  sweepMemory: [fc.constant({}), 1],
  recall: [
    fc.record({
      query: arbQuery(),
      scope: optionalScope(),
      limit: fc.integer({ min: 1, max: 5 }),
      includeParentScopes: fc.boolean(),
      includeDescendants: fc.boolean(),
      where: fc.option(arbWhere(), { nil: undefined }),
    }),
    1,
  ],
  advanceClock: [fc.record({ ms: fc.integer({ min: -2000, max: 5000 }) }), 2],
} as const;

type Kind = keyof typeof OPERATIONS;

/** One store call: its kind and the fields drawn for it. */
export type Operation = { [K in Kind]: { kind: K } & ((typeof OPERATIONS)[K][0] extends fc.Arbitrary<infer T> ? T : never) }[Kind];

/** What one operation gave: its value, or the code of the typed error it raised. */
export type OperationOutcome = { ok: true; value: unknown } | { ok: false; code: string };

/** One operation. */
export function arbOperation(): fc.Arbitrary<Operation> {
  const kinds = Object.entries(OPERATIONS) as [Kind, (typeof OPERATIONS)[Kind]][];
  return fc.oneof(
    ...kinds.map(([kind, [fields, weight]]) => ({ arbitrary: (fields as fc.Arbitrary<object>).map((o) => ({ kind, ...o }) as Operation), weight })),
  );
}

/** A sequence of operations. */
export function arbOperations(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<Operation[]> {
  return fc.array(arbOperation(), { minLength: constraints.minLength ?? 1, maxLength: constraints.maxLength ?? 30 });
}

/** Options of {@link runOperations}. */
export interface RunOperationsOptions {
  /** The provider's manual clock, moved by `advanceClock`; without one, `advanceClock` does nothing. */
  clock?: ManualClock;
}

/** Runs `operations` in order against `provider`, each settled to an outcome (see {@link settle}). */
export async function runOperations(provider: Provider, operations: readonly Operation[], options: RunOperationsOptions = {}): Promise<OperationOutcome[]> {
  const sessions: string[] = [];
  const items: string[] = [];
  const pick = (list: string[], r: Ref): string => (r < 0 || list.length === 0 ? 'missing' : list[r % list.length]!);
  /** Each kind's call; the arguments the generator leaves out are left out of the call too. */
  const calls: { [K in Operation['kind']]: (op: Extract<Operation, { kind: K }>) => Promise<unknown> } = {
    createSession: async (op) => {
      const s = await provider.sessions.create(op.input);
      sessions.push(s.id);
      return s;
    },
    appendTurn: (op) => provider.sessions.appendTurn({ sessionId: pick(sessions, op.session), role: op.role, content: op.content }),
    deleteSession: (op) => provider.sessions.delete(pick(sessions, op.session)),
    updateSession: (op) => provider.sessions.update(pick(sessions, op.session), op.input),
    turns: (op) => provider.sessions.turns(pick(sessions, op.session), { afterSeq: op.afterSeq, limit: op.limit }),
    listSessions: (op) =>
      provider.sessions.list({
        offset: op.offset,
        limit: op.limit,
        ...(op.scope === undefined ? {} : { scope: op.scope, includeDescendants: op.includeDescendants }),
      }),
    upsertSkill: (op) => provider.skills.upsert(op.input),
    recordOutcome: (op) => provider.skills.recordOutcome(op.slug, op.scope === undefined ? { success: op.success } : { success: op.success, scope: op.scope }),
    deleteSkill: (op) => provider.skills.delete(op.slug, { scope: op.scope }),
    getSkill: (op) => provider.skills.get(op.slug, { scope: op.scope }),
    listSkills: (op) => provider.skills.list({ scope: op.scope, includeDescendants: op.includeDescendants }),
    namespaces: (op) =>
      provider.namespaces({ ...(op.prefix === undefined ? {} : { prefix: op.prefix }), ...(op.maxDepth === undefined ? {} : { maxDepth: op.maxDepth }) }),
    searchSkills: (op) => provider.skills.search(op.query, op.limit),
    writeMemory: async (op) => {
      const item = await provider.memory.write(op.input);
      items.push(item.id);
      return item;
    },
    deleteMemory: (op) => provider.memory.delete(pick(items, op.item)),
    getMemory: (op) => provider.memory.get(pick(items, op.item)),
    updateMemory: (op) => provider.memory.update(pick(items, op.item), op.input),
    sweepMemory: () => provider.memory.sweep(),
    recall: (op) =>
      provider.memory.recall({
        query: op.query,
        limit: op.limit,
        ...(op.scope === undefined ? {} : { scope: op.scope, includeParentScopes: op.includeParentScopes, includeDescendants: op.includeDescendants }),
        ...(op.where === undefined ? {} : { where: op.where }),
      }),
    advanceClock: async (op) => {
      options.clock?.advance(op.ms);
      return op.ms;
    },
  };
  const outcomes: OperationOutcome[] = [];
  for (const op of operations) outcomes.push(await settle((calls[op.kind] as (op: Operation) => Promise<unknown>)(op)));
  return outcomes;
}

/** What `call` gave: its value, or the code of the typed store error it raised; any other error is thrown, since it is a bug. */
export async function settle(call: Promise<unknown>): Promise<OperationOutcome> {
  try {
    return { ok: true, value: await call };
  } catch (error) {
    if (!isAgentStateError(error)) throw error;
    return { ok: false, code: error.code };
  }
}
