/**
 * Differential test: random sequences of store operations run against the
 * in-memory reference and against SQLite with the same clock, seed and
 * instance. Every result (or error code), every ordered query, the event
 * lists and the snapshot bytes must be identical; `rebuild()` must then
 * reproduce the tables exactly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSnapshot, isAgentStateError } from '@agentstate/core';
import type { EventSourcedProvider, ManualClock } from '@agentstate/core';
import { pair } from './helpers.js';

const WORDS = [
  'alpha',
  'Alphabet',
  'beta',
  'Éclair',
  'eclairs',
  'straße',
  'İstanbul',
  'ǅemal',
  'ﬁle',
  '日本語',
  'ø',
  'AND',
  'NEAR',
  '"quoted"',
  'x*',
  '(paren)',
  '😀',
  'עברית',
  "O'Brien",
  'a-b',
  '١٢٣',
  'Ⅻ',
  '²',
  'déjà-vu',
];
const SLUGS = ['deploy', 'roll-back', 'déploy'];
const SCOPES = [[], ['project:p'], ['project:p', 'workspace:w'], ['instance:i']];
const KINDS = ['fact', 'preference'];

type Op =
  | { op: 'createSession'; title: string }
  | { op: 'appendTurn'; session: number; content: string }
  | { op: 'deleteSession'; session: number }
  | { op: 'upsertSkill'; slug: string; scope: number; body: string | undefined; tags: string[] | undefined; syncVersion: number | undefined }
  | { op: 'recordOutcome'; slug: string; scope: number | undefined; success: boolean }
  | { op: 'deleteSkill'; slug: string; scope: number | undefined }
  | { op: 'writeMemory'; content: string; scope: number; kind: string }
  | { op: 'deleteMemory'; item: number }
  | { op: 'tick'; ms: number };

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('createSession' as const), title: text }),
  fc.record({ op: fc.constant('appendTurn' as const), session: fc.nat(4), content: text }),
  fc.record({ op: fc.constant('deleteSession' as const), session: fc.nat(4) }),
  fc.record({
    op: fc.constant('upsertSkill' as const),
    slug: fc.constantFrom(...SLUGS),
    scope: fc.nat(SCOPES.length - 1),
    body: fc.option(text, { nil: undefined }),
    tags: fc.option(fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }), { nil: undefined }),
    syncVersion: fc.option(fc.nat(3), { nil: undefined }),
  }),
  fc.record({
    op: fc.constant('recordOutcome' as const),
    slug: fc.constantFrom(...SLUGS),
    scope: fc.option(fc.nat(SCOPES.length - 1), { nil: undefined }),
    success: fc.boolean(),
  }),
  fc.record({ op: fc.constant('deleteSkill' as const), slug: fc.constantFrom(...SLUGS), scope: fc.option(fc.nat(SCOPES.length - 1), { nil: undefined }) }),
  fc.record({ op: fc.constant('writeMemory' as const), content: text, scope: fc.nat(SCOPES.length - 1), kind: fc.constantFrom(...KINDS) }),
  fc.record({ op: fc.constant('deleteMemory' as const), item: fc.nat(8) }),
  fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: -2, max: 3 }) }),
);

/** The ids each provider handed out, by creation order (identical when the providers agree). */
interface Seen {
  sessions: string[];
  memory: string[];
}

async function outcome<T>(fn: () => Promise<T>): Promise<unknown> {
  try {
    return { ok: await fn() };
  } catch (error) {
    if (isAgentStateError(error)) return { error: error.code };
    throw error;
  }
}

async function step(p: EventSourcedProvider, o: Op, seen: Seen, clock: ManualClock): Promise<unknown> {
  switch (o.op) {
    case 'tick':
      clock.advance(o.ms);
      return null;
    case 'createSession':
      return outcome(async () => {
        const s = await p.sessions.create({ title: o.title });
        seen.sessions.push(s.id);
        return s;
      });
    case 'appendTurn':
      return outcome(() => p.sessions.appendTurn({ sessionId: seen.sessions[o.session] ?? 'missing', role: 'user', content: o.content }));
    case 'deleteSession':
      return outcome(() => p.sessions.delete(seen.sessions[o.session] ?? 'missing'));
    case 'upsertSkill':
      return outcome(() => p.skills.upsert({ slug: o.slug, scope: SCOPES[o.scope], body: o.body, tags: o.tags, syncVersion: o.syncVersion, name: o.slug }));
    case 'recordOutcome':
      return outcome(() => p.skills.recordOutcome(o.slug, { success: o.success, scope: o.scope === undefined ? undefined : SCOPES[o.scope] }));
    case 'deleteSkill':
      return outcome(() => p.skills.delete(o.slug, { scope: o.scope === undefined ? undefined : SCOPES[o.scope] }));
    case 'writeMemory':
      return outcome(async () => {
        const m = await p.memory.write({ content: o.content, scope: SCOPES[o.scope], kind: o.kind });
        seen.memory.push(m.id);
        return m;
      });
    case 'deleteMemory':
      return outcome(() => p.memory.delete(seen.memory[o.item] ?? 'missing'));
  }
}

const QUERIES = [
  '',
  'al',
  'alpha',
  'ECLAIR',
  'eclair',
  'strasse',
  'stra',
  'istanbul',
  'dz',
  'file',
  '日本',
  'o',
  'and',
  'near',
  'quoted x',
  '(paren',
  '"',
  '*',
  '😀',
  'עב',
  'obrien',
  "o'",
  'a b',
  '١',
  'xii',
  '2',
  'deja vu',
  'nothing-here',
];

/** Everything a caller can read, in the order the stores return it. */
async function reads(p: EventSourcedProvider, seen: Seen): Promise<unknown> {
  const out: Record<string, unknown> = {};
  out.sessions = await p.sessions.list();
  out.turns = await Promise.all(seen.sessions.map((id) => outcome(() => p.sessions.turns(id))));
  out.skills = await Promise.all(SCOPES.map((s) => p.skills.list({ scope: s })));
  out.skillGets = await Promise.all(
    SLUGS.flatMap((slug) => [outcome(() => p.skills.get(slug)), ...SCOPES.map((s) => outcome(() => p.skills.get(slug, { scope: s })))]),
  );
  out.search = await Promise.all(QUERIES.map((q) => p.skills.search(q)));
  out.searchScoped = await Promise.all(QUERIES.map((q) => p.skills.search(q, { scope: SCOPES[2], includeParentScopes: true, limit: 2 })));
  out.searchWinRate = await p.skills.search('', { order: 'winRate' });
  out.recall = await Promise.all(QUERIES.map((q) => p.memory.recall({ query: q, limit: 100 })));
  out.recallLimited = await Promise.all(QUERIES.map((q) => p.memory.recall({ query: q, limit: 2, kinds: ['fact'] })));
  out.recallScoped = await Promise.all(QUERIES.map((q) => p.memory.recall({ query: q, scope: SCOPES[1], includeParentScopes: true })));
  // Relevance scores differ (FTS5's bm25 sees the whole table); the matched set must not.
  const ids = (hits: { id: string }[]) => hits.map((h) => h.id).sort();
  out.relevanceSets = await Promise.all(QUERIES.map(async (q) => ids(await p.memory.recall({ query: q, order: 'relevance', limit: 1000 }))));
  out.anySets = await Promise.all(QUERIES.map(async (q) => ids(await p.memory.recall({ query: `${q} alpha`, order: 'relevance', match: 'any', limit: 1000 }))));
  out.skillRelevanceSets = await Promise.all(QUERIES.map(async (q) => (await p.skills.search(q, { order: 'relevance' })).map((s) => s.id).sort()));
  return out;
}

describe('SQLite agrees with the in-memory reference', () => {
  it('on random operation sequences: results, reads, events, snapshots and rebuild', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), async (ops) => {
        const { memory, sqlite, clocks, close } = await pair();
        try {
          const seenM: Seen = { sessions: [], memory: [] };
          const seenS: Seen = { sessions: [], memory: [] };
          for (const o of ops) {
            const a = await step(memory, o, seenM, clocks[0]!);
            const b = await step(sqlite, o, seenS, clocks[1]!);
            expect(b).toEqual(a);
          }
          expect(await reads(sqlite, seenS)).toEqual(await reads(memory, seenM));
          expect(await sqlite.log.read({ stream: 'state' })).toEqual(await memory.log.read({ stream: 'state' }));
          const before = encodeSnapshot(await sqlite.snapshot());
          expect(before).toBe(encodeSnapshot(await memory.snapshot()));
          await sqlite.rebuild();
          expect(encodeSnapshot(await sqlite.snapshot())).toBe(before);
          expect(await reads(sqlite, seenS)).toEqual(await reads(memory, seenM));
        } finally {
          await close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
