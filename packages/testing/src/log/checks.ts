/** A29: the log contract of docs/contract.md §7, checked on a fresh log per check. */
import type { AppendInput, Clock, Log, Session, Skill } from '@agentstate/core';
import { EventTypes, formatInstant, LIMITS, ManualClock, STATE_SCHEMA_VERSION, STATE_STREAM, ValidationError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { INSTANT, T0 } from '../suite/fixtures.js';
import { checks, needing } from '../suite/harness.js';

/** What a log check is handed. */
export interface LogCheckEnv {
  /** A fresh, empty log; destroyed after the check. */
  open(options?: { clock?: Clock }): Promise<Log>;
  /** Whether the factory honours `clock`. */
  readonly injectableClock: boolean;
}

/** One log check. */
export interface LogCheck {
  name: string;
  needs?: ReadonlyArray<'injectableClock'>;
  run(env: LogCheckEnv): Promise<void>;
}

/** Runs a mutation that may throw because its target is frozen. */
function attempt(mutate: () => void): void {
  try {
    mutate();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
}

/** Deliberately ill-typed arguments, as a JavaScript caller could pass them. */
// biome-ignore lint/suspicious/noExplicitAny: these checks pass what a JavaScript caller could, past the types.
type Loose = any;

const ENVELOPE = { syncVersion: 1, originInstanceId: 'instance-1', updatedHlc: { wall: T0, counter: 0 }, lastWriterId: 'instance-1', deleted: false };
const STAMPS = { createdAt: formatInstant(T0), updatedAt: formatInstant(T0), ...ENVELOPE };
const SESSION: Session = { id: 'session-1', title: 't', model: 'm', scope: [], metadata: {}, ...STAMPS };
const SKILL: Skill = {
  id: 'skill-1',
  slug: 'deploy',
  name: 'Deploy',
  body: 'ship it',
  tags: ['ops'],
  scope: [],
  uses: 2,
  wins: 1,
  check: '',
  version: 1,
  ...STAMPS,
};
const state = (type: string, payload: unknown): AppendInput => ({ stream: STATE_STREAM, type, payload });
const session = (over: Partial<Session>): AppendInput => state(EventTypes.SessionCreated, { session: { ...SESSION, ...over } });
const skill = (over: Partial<Skill>): AppendInput => state(EventTypes.SkillUpserted, { skill: { ...SKILL, ...over } });

/** `state` events no store could have written: each must be refused by `append`. */
const UNREADABLE: Array<[string, AppendInput]> = [
  ['an unknown type', state('session.renamed', { session: SESSION })],
  ['a payload without its record', state(EventTypes.SessionCreated, {})],
  ['a record with an extra field', session({ extra: 1 } as Loose)],
  ['a schema version newer than the library', { ...session({}), schemaVersion: STATE_SCHEMA_VERSION + 1 }],
  ['a schema version older than the library, with no upcaster', { ...session({}), schemaVersion: 0 }],
  ['a date that does not exist', session({ createdAt: '2026-02-30T00:00:00.000Z' })],
  ['an id over the limit', session({ id: 'i'.repeat(LIMITS.id + 1) })],
  ['NUL in a title', session({ title: 'a\u0000b' })],
  ['a title over the limit', session({ title: 't'.repeat(LIMITS.shortText + 1) })],
  ['too many tags', skill({ tags: Array.from({ length: LIMITS.tags + 1 }, (_, i) => `t${i}`) })],
  ['uses past the safe integers', skill({ uses: Number.MAX_SAFE_INTEGER + 1, wins: 0 })],
  ['more wins than uses', skill({ uses: 1, wins: 2 })],
  ['a fractional version', skill({ version: 1.5 })],
  ['an HLC counter over 65535', skill({ updatedHlc: { wall: T0, counter: 0x10000 } })],
];

/** A check body (needing `injectableClock`) handed a fresh log on a manual clock at {@link T0}. */
const clocked = (body: (log: Log, clock: ManualClock) => Promise<void>) =>
  needing<LogCheckEnv, 'injectableClock'>(['injectableClock'], async (env) => {
    const clock = new ManualClock(T0);
    return body(await env.open({ clock }), clock);
  });
/** A check body handed a fresh log. */
const onLog = (body: (log: Log) => Promise<void>) => async (env: LogCheckEnv) => body(await env.open());
const byNumber = (x: number, y: number) => x - y;
const seqOf = (e: { seq: number }) => e.seq;

export const logChecks: LogCheck[] = checks<LogCheckEnv, 'injectableClock'>([], {
  'A29 append assigns dense seqs from 1 per stream; streams are independent; head follows': onLog(async (log) => {
    expect(await log.head('a')).toBe(0);
    const seqs: string[] = [];
    for (const stream of ['a', 'b', 'a', 'a', 'c', 'b']) seqs.push(`${stream}${(await log.append({ stream, type: 't', payload: { stream } })).seq}`);
    expect(seqs).toEqual(['a1', 'b1', 'a2', 'a3', 'c1', 'b2']);
    expect([await log.head('a'), await log.head('b'), await log.head('c'), await log.head('unknown')]).toEqual([3, 2, 1, 0]);
    expect((await log.read({ stream: 'a' })).map((e) => `${e.stream}${e.seq}`)).toEqual(['a1', 'a2', 'a3']);
  }),
  'A29 append stamps time from the clock and schemaVersion 1 when absent, and keeps given ones': clocked(async (log, clock) => {
    expect(await log.append({ stream: 's', type: 't', payload: 1 })).toMatchObject({ time: formatInstant(T0), schemaVersion: 1 });
    clock.advance(1234);
    expect((await log.append({ stream: 's', type: 't', payload: 2 })).time).toBe(formatInstant(T0 + 1234));
    const given = await log.append({ stream: 's', type: 't', payload: 3, time: '2030-02-02T02:02:02.002Z', schemaVersion: 3 });
    expect(given).toMatchObject({ seq: 3, time: '2030-02-02T02:02:02.002Z', schemaVersion: 3 });
    const stamps = (await log.read({ stream: 's' })).flatMap((e) => [e.time, e.schemaVersion]);
    expect(stamps).toEqual([formatInstant(T0), 1, formatInstant(T0 + 1234), 1, '2030-02-02T02:02:02.002Z', 3]);
  }),
  'A29 append never moves time back along a stream: a clock set back is raised to the time before, an earlier given time is refused': clocked(
    async (log, clock) => {
      await log.append({ stream: 's', type: 't', payload: 1 });
      clock.advance(-60_000);
      expect((await log.append({ stream: 's', type: 't', payload: 2 })).time, 'a clock set back').toBe(formatInstant(T0));
      // Another stream has its own times: the clock's reading stands there.
      expect((await log.append({ stream: 'other', type: 't', payload: 1 })).time).toBe(formatInstant(T0 - 60_000));
      await expectError(() => log.append({ stream: 's', type: 't', payload: 3, time: formatInstant(T0 - 1) }), ValidationError, 'an earlier given time');
      expect(await log.head('s'), 'the refused append stored nothing').toBe(2);
      expect((await log.append({ stream: 's', type: 't', payload: 3, time: formatInstant(T0) })).time, 'an equal given time').toBe(formatInstant(T0));
      clock.advance(120_000);
      expect((await log.append({ stream: 's', type: 't', payload: 4 })).time, 'the clock past the head again').toBe(formatInstant(T0 + 60_000));
      expect((await log.read({ stream: 's' })).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    },
  ),
  'A29 append stamps a canonical time and schemaVersion 1 without an injected clock': onLog(async (log) => {
    expect(await log.append({ stream: 's', type: 't', payload: {} })).toMatchObject({ time: expect.stringMatching(INSTANT), schemaVersion: 1 });
  }),
  'A29 append keeps the linkage fields verbatim': onLog(async (log) => {
    const meta = {
      actor: 'agent:planner',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      causationId: 'req-42',
      originInstanceId: 'instance-1',
      principal: 'user:ada',
    };
    const appended = await log.append({ stream: 's', type: 'x.happened', payload: { n: 1 }, ...meta });
    expect(appended).toMatchObject({ stream: 's', seq: 1, type: 'x.happened', payload: { n: 1 }, ...meta });
    const [read] = await log.read({ stream: 's' });
    expect(read).toEqual(appended);
    const bare = await log.append({ stream: 's', type: 'x.happened', payload: { n: 2 } });
    for (const key of Object.keys(meta)) expect((bare as unknown as Record<string, unknown>)[key], key).toBeUndefined();
  }),
  'A29 read honours afterSeq and limit; an unknown stream reads empty': onLog(async (log) => {
    for (let i = 1; i <= 5; i += 1) await log.append({ stream: 's', type: 't', payload: { i } });
    const seqs = async (q: { afterSeq?: number; limit?: number }) => (await log.read({ stream: 's', ...q })).map((e) => e.seq);
    expect(await seqs({})).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs({ afterSeq: 2 })).toEqual([3, 4, 5]);
    expect(await seqs({ limit: 2 })).toEqual([1, 2]);
    expect([await seqs({ afterSeq: 1, limit: 3 }), await seqs({ afterSeq: 4, limit: 10 }), await seqs({ afterSeq: 5 })]).toEqual([[2, 3, 4], [5], []]);
    expect(await seqs({ afterSeq: 0, limit: 0 })).toEqual([1, 2, 3, 4, 5]);
    expect((await log.read({ stream: 's' })).map((e) => e.payload)).toEqual([1, 2, 3, 4, 5].map((i) => ({ i })));
    expect([await log.read({ stream: 'unknown' }), await log.read({ stream: 'unknown', afterSeq: 3, limit: 2 })]).toEqual([[], []]);
  }),
  'A29 concurrent appends to several streams stay dense': onLog(async (log) => {
    const streams = ['a', 'b', 'c', 'd'];
    const appended = await Promise.all(Array.from({ length: 100 }, (_, i) => log.append({ stream: streams[i % 4]!, type: 't', payload: { i } })));
    for (const stream of streams) {
      const dense = Array.from({ length: 25 }, (_, i) => i + 1);
      const mine = appended.filter((e) => e.stream === stream).map((e) => e.seq);
      expect(mine.sort(byNumber), stream).toEqual(dense);
      const events = await log.read({ stream });
      expect(events.map(seqOf), stream).toEqual(dense);
      // Every payload is stored exactly once.
      expect(new Set(events.map((e) => (e.payload as { i: number }).i)).size, stream).toBe(25);
      expect(await log.head(stream)).toBe(25);
    }
  }),
  "A29 payloads are JSON: what goes in comes out, and mutating the caller's objects never changes history": onLog(async (log) => {
    const payload = {
      text: 'Jürgen said "hi" — 日本語 😀 \\ \n\t',
      numbers: [0, -1, 1.5, 1e21, Number.MAX_SAFE_INTEGER],
      nested: { deep: { list: [true, false, null, { k: 'v' }] } },
      empty: {},
      none: [],
    };
    const original = JSON.parse(JSON.stringify(payload)) as typeof payload;
    const appended = await log.append({ stream: 's', type: 't', payload });
    payload.text = 'changed';
    payload.nested.deep.list.push(1 as never);
    (payload.numbers as number[]).length = 0;
    // What append and read return may be frozen (then mutating it throws) or a copy; either way
    // history stays.
    attempt(() => Object.assign(appended.payload, { empty: { injected: true } }));
    const [stored] = await log.read({ stream: 's' });
    expect(stored!.payload).toEqual(original);
    attempt(() => Object.assign(stored!.payload as typeof payload, { text: 'mutated after read' }));
    expect((await log.read({ stream: 's' }))[0]!.payload).toEqual(original);
    expect(await log.append({ stream: 's', type: 't', payload: 'a string' })).toMatchObject({ seq: 2, payload: 'a string' });
    expect((await log.read({ stream: 's', afterSeq: 1 }))[0]!.payload).toBe('a string');
  }),
  'A29 a failed append consumes no seq': onLog(async (log) => {
    await log.append({ stream: 's', type: 't', payload: 1 });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(log.append({ stream: 's', type: 't', payload: circular })).rejects.toThrow();
    await expect(log.append({ stream: 's', type: 't', payload: { big: 1n } })).rejects.toThrow();
    expect([await log.head('s'), (await log.append({ stream: 's', type: 't', payload: 2 })).seq]).toEqual([1, 2]);
    expect((await log.read({ stream: 's' })).map((e) => e.payload)).toEqual([1, 2]);
  }),
  'A29 identity: every log has one, stable across calls and appends, and two logs differ': async (env) => {
    const log = await env.open();
    const identity = await log.identity();
    expect(identity).toMatch(/\S/);
    await log.append({ stream: 's', type: 't', payload: 1 });
    expect(await log.identity()).toBe(identity);
    expect(await (await env.open()).identity()).not.toBe(identity);
  },
  'A29 snapshots: save replaces the same (stream, seq); latest honours upToSeq; streams are independent': onLog(async (log) => {
    expect(await log.latestSnapshot('s')).toBeUndefined();
    await log.saveSnapshot({ stream: 's', seq: 2, data: 'two' });
    await log.saveSnapshot({ stream: 's', seq: 5, data: 'five' });
    await log.saveSnapshot({ stream: 's', seq: 9, data: 'nine' });
    await log.saveSnapshot({ stream: 'other', seq: 20, data: 'other' });
    expect(await log.latestSnapshot('s')).toEqual({ stream: 's', seq: 9, data: 'nine' });
    expect(await log.latestSnapshot('s', { upToSeq: 8 })).toEqual({ stream: 's', seq: 5, data: 'five' });
    expect(await log.latestSnapshot('s', { upToSeq: 5 })).toEqual({ stream: 's', seq: 5, data: 'five' });
    expect(await log.latestSnapshot('s', { upToSeq: 4 })).toEqual({ stream: 's', seq: 2, data: 'two' });
    expect([await log.latestSnapshot('s', { upToSeq: 1 }), await log.latestSnapshot('s', { upToSeq: 0 })]).toEqual([undefined, undefined]);
    await log.saveSnapshot({ stream: 's', seq: 5, data: 'five again' });
    expect(await log.latestSnapshot('s', { upToSeq: 8 })).toEqual({ stream: 's', seq: 5, data: 'five again' });
    expect(await log.latestSnapshot('other')).toEqual({ stream: 'other', seq: 20, data: 'other' });
    expect([await log.latestSnapshot('other', { upToSeq: 19 }), await log.latestSnapshot('unknown')]).toEqual([undefined, undefined]);
    // Snapshots are not events.
    expect([await log.head('s'), await log.read({ stream: 's' })]).toEqual([0, []]);
  }),
  'A29 append refuses a state event the decoder would refuse, with a ValidationError, storing nothing': onLog(async (log) => {
    for (const [label, input] of UNREADABLE) {
      await expectError(() => log.append(input), ValidationError, label);
      expect(await log.head(STATE_STREAM), label).toBe(0);
    }
    // What a store writes is accepted, at the limits too, and reads back as given.
    const atLimits = skill({
      id: 'i'.repeat(LIMITS.id),
      uses: Number.MAX_SAFE_INTEGER,
      wins: Number.MAX_SAFE_INTEGER,
      tags: Array.from({ length: LIMITS.tags }, (_, i) => `t${i}`),
    });
    expect([(await log.append(session({}))).seq, (await log.append(atLimits)).seq]).toEqual([1, 2]);
    expect((await log.read({ stream: STATE_STREAM })).map((e) => e.payload)).toEqual([session({}).payload, atLimits.payload]);
    // Other streams stay free-form.
    expect((await log.append({ stream: 'audit', type: 'anything', payload: { any: 'shape' } })).seq).toBe(1);
  }),
  'A29 malformed arguments to append, read, head and the snapshot calls are a ValidationError': onLog(async (log) => {
    await log.append({ stream: 's', type: 't', payload: 1 });
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['head of an object', () => log.head({} as Loose)],
      ['head of an empty stream name', () => log.head('')],
      ['read with a string limit', () => log.read({ stream: 's', limit: '2' } as Loose)],
      ['read with a negative limit', () => log.read({ stream: 's', limit: -1 })],
      ['read with a fractional limit', () => log.read({ stream: 's', limit: 1.5 })],
      ['read with a limit past the safe integers', () => log.read({ stream: 's', limit: 2 ** 53 })],
      ['read with a string afterSeq', () => log.read({ stream: 's', afterSeq: '1' } as Loose)],
      ['read with a negative afterSeq', () => log.read({ stream: 's', afterSeq: -1 })],
      ['read with NaN afterSeq', () => log.read({ stream: 's', afterSeq: Number.NaN })],
      ['read without a stream', () => log.read({} as Loose)],
      ['read of a string', () => log.read('s' as Loose)],
      ['append with a time that does not exist', () => log.append({ stream: 's', type: 't', payload: 1, time: '2026-02-30T00:00:00.000Z' })],
      ['append with a time that is not an instant', () => log.append({ stream: 's', type: 't', payload: 1, time: 'yesterday' })],
      ['append with a fractional schemaVersion', () => log.append({ stream: 's', type: 't', payload: 1, schemaVersion: 1.5 })],
      ['append with a linkage field that is not a string', () => log.append({ stream: 's', type: 't', payload: 1, actor: 42 } as Loose)],
      ['append of a payload that is not JSON', () => log.append({ stream: 's', type: 't', payload: { big: 1n } })],
      ['append without a type', () => log.append({ stream: 's', payload: 1 } as Loose)],
      ['saveSnapshot with a string seq', () => log.saveSnapshot({ stream: 's', seq: '1', data: 'x' } as Loose)],
      ['saveSnapshot with data that is not a string', () => log.saveSnapshot({ stream: 's', seq: 1, data: 5 } as Loose)],
      ['saveSnapshot to an empty stream name', () => log.saveSnapshot({ stream: '', seq: 1, data: 'x' })],
      ['latestSnapshot with a string upToSeq', () => log.latestSnapshot('s', { upToSeq: '3' } as Loose)],
      ['latestSnapshot of an object', () => log.latestSnapshot({} as Loose)],
    ];
    for (const [label, call] of calls) await expectError(call, ValidationError, label);
    expect([await log.head('s'), await log.latestSnapshot('s')]).toEqual([1, undefined]);
  }),
});
