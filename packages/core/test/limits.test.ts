/**
 * The decoder refuses exactly what the live API could not have written, and
 * the live API never writes what the decoder refuses: counters at their
 * ceiling, impossible dates, text over a limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AgentStateError,
  CorruptionError,
  createInMemoryProvider,
  ManualClock,
  decodeStateEvent,
  EventTypes,
  LIMITS,
  InMemoryLog,
  replay,
  seededEntropy,
  STATE_STREAM,
  UuidV7Generator,
  ValidationError,
} from '../src/index.js';
import { HybridLogicalClock } from '../src/time/hlc.js';
import { Stamper } from '../src/write/stamper.js';
import type { EventSourcedProvider, Skill } from '../src/index.js';

const MAX = Number.MAX_SAFE_INTEGER;

async function refused(call: () => Promise<unknown>): Promise<ValidationError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

/**
 * A stamper and records at counter ceilings that no valid log can reach (the
 * fold refuses a log that jumps a counter), so the stamper's own bounds are
 * tested directly: they are the last line of defence.
 */
async function atCeiling() {
  const source = createInMemoryProvider();
  const skill = await source.skills.upsert({ slug: 'deploy' });
  const session = await source.sessions.create({});
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00.000Z'));
  const stamper = new Stamper({ instanceId: 'i1', clock, hlc: new HybridLogicalClock(clock), ids: new UuidV7Generator(clock, seededEntropy(1)) });
  return { stamper, skill, session };
}

function refusedNow(call: () => unknown): ValidationError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('counters', () => {
  it('refuses recordOutcome on a skill whose uses are at the largest safe integer, appending nothing', async () => {
    const p = createInMemoryProvider();
    await p.skills.upsert({ slug: 'deploy', uses: MAX, wins: MAX });
    for (const success of [true, false]) {
      expect((await refused(() => p.skills.recordOutcome('deploy', { success }))).field).toBe('uses');
    }
    expect(await p.log.head(STATE_STREAM)).toBe(1);
    expect(await p.skills.get('deploy')).toMatchObject({ uses: MAX, wins: MAX });
  });

  it('refuses counts past the safe integers and wins above uses, given or stored', async () => {
    const p = createInMemoryProvider();
    expect((await refused(() => p.skills.upsert({ slug: 'a', uses: MAX + 1 }))).field).toBe('uses');
    expect((await refused(() => p.skills.upsert({ slug: 'a', uses: 1, wins: 2 }))).field).toBe('wins');
    await p.skills.upsert({ slug: 'a', uses: 5, wins: 5 });
    expect((await refused(() => p.skills.upsert({ slug: 'a', uses: 3 }))).field).toBe('wins');
    expect((await refused(() => p.skills.upsert({ slug: 'a', wins: 6 }))).field).toBe('wins');
    expect(await p.log.head(STATE_STREAM)).toBe(1);
  });

  it('refuses bumping version and syncVersion past the safe integers', async () => {
    const { stamper, skill } = await atCeiling();
    const atVersion: Skill = { ...skill, version: MAX };
    expect(refusedNow(() => stamper.upsertSkill({ slug: 'deploy', body: 'b' }, atVersion, atVersion)).field).toBe('version');
    expect(refusedNow(() => stamper.deleteSkill(atVersion)).field).toBe('version');
    const atSync: Skill = { ...skill, syncVersion: MAX };
    expect(refusedNow(() => stamper.recordOutcome(atSync, true)).field).toBe('syncVersion');
  });

  it("refuses a turn past the safe integers: the session's syncVersion or the turn seq", async () => {
    const { stamper, session } = await atCeiling();
    expect(refusedNow(() => stamper.appendTurn({ sessionId: session.id, role: 'user', content: 'again' }, session, MAX, false)).field).toBe('seq');
    const bumped = { ...session, syncVersion: MAX };
    expect(refusedNow(() => stamper.appendTurn({ sessionId: session.id, role: 'user', content: 'again' }, bumped, 1, false)).field).toBe('syncVersion');
  });

  it('a log that jumps a counter is refused by the fold, so a ceiling is reached only one step at a time', async () => {
    const source = createInMemoryProvider();
    const skill = await source.skills.upsert({ slug: 'deploy' });
    const log = new InMemoryLog();
    await log.append({ stream: STATE_STREAM, type: EventTypes.SkillUpserted, payload: { skill: { ...skill, version: MAX } } });
    await expect(replay(log)).rejects.toBeInstanceOf(CorruptionError);
  });
});

describe('instants', () => {
  it('refuses dates that do not exist and times without a zone; accepts those that exist', async () => {
    const p = createInMemoryProvider();
    for (const createdAt of [
      '2026-02-30',
      '2027-02-29T00:00:00Z',
      '2026-04-31T10:00:00+02:00',
      '2026-01-01T24:00:00Z',
      '2026-01-01T10:60:00Z',
      '2026-01-01T10:00:00',
      'March 2, 2026',
    ]) {
      expect((await refused(() => p.sessions.create({ createdAt }))).field, createdAt).toBe('createdAt');
    }
    expect(await p.log.head(STATE_STREAM)).toBe(0);
    expect((await p.sessions.create({ createdAt: '2024-02-29' })).createdAt).toBe('2024-02-29T00:00:00.000Z');
    expect((await p.sessions.create({ createdAt: '2026-11-29 17:54:02.1234+0100' })).createdAt).toBe('2026-11-29T16:54:02.123Z');
  });
});

describe('the decoder mirrors the input rules', () => {
  it('refuses each field the live API would have refused, and reads the limits themselves', async () => {
    const p = createInMemoryProvider();
    const skill = await p.skills.upsert({ slug: 'deploy', tags: ['ops'] });
    const item = await p.memory.write({ content: 'fact' });
    const decodes = (type: string, payload: unknown) => {
      try {
        decodeStateEvent({ stream: STATE_STREAM, seq: 1, type, time: skill.createdAt, schemaVersion: 1, payload });
        return true;
      } catch {
        return false;
      }
    };
    const skillWith = (over: Record<string, unknown>) => decodes(EventTypes.SkillUpserted, { skill: { ...skill, ...over } });
    const itemWith = (over: Record<string, unknown>) => decodes(EventTypes.MemoryWritten, { item: { ...item, ...over } });
    const bad: Array<[string, boolean]> = [
      ['id over the limit', skillWith({ id: 'i'.repeat(LIMITS.id + 1) })],
      ['slug over the limit', skillWith({ slug: 's'.repeat(LIMITS.slug + 1) })],
      ['NUL in a name', skillWith({ name: 'a\u0000' })],
      ['a lone surrogate in a body', skillWith({ body: '\uD800' })],
      ['check over the limit', skillWith({ check: 'c'.repeat(LIMITS.check + 1) })],
      ['too many tags', skillWith({ tags: Array.from({ length: LIMITS.tags + 1 }, (_, i) => `t${i}`) })],
      ['a tag over the limit', skillWith({ tags: ['t'.repeat(LIMITS.shortText + 1)] })],
      ['a scope level with NUL', skillWith({ scope: { ...skill.scope, project: '\u0000' } })],
      ['uses past the safe integers', skillWith({ uses: MAX + 1 })],
      ['wins above uses', skillWith({ uses: 1, wins: 2 })],
      ['version past the safe integers', skillWith({ version: MAX + 1 })],
      ['syncVersion past the safe integers', skillWith({ syncVersion: MAX + 1 })],
      ['an HLC beyond year 9999', skillWith({ updatedHlc: { wall: Date.UTC(10000, 0, 1), counter: 0 } })],
      ['a date that does not exist', skillWith({ createdAt: '2026-02-30T00:00:00.000Z' })],
      ['content over the limit', itemWith({ content: 'c'.repeat(LIMITS.longText + 1) })],
      ['empty memory content', itemWith({ content: '' })],
      ['a kind over the limit', itemWith({ kind: 'k'.repeat(LIMITS.shortText + 1) })],
      ['an instance id with NUL', itemWith({ lastWriterId: 'a\u0000' })],
    ];
    for (const [label, accepted] of bad) expect(accepted, label).toBe(false);
    expect(skillWith({ id: 'i'.repeat(LIMITS.id), uses: MAX, wins: MAX, version: MAX, syncVersion: MAX })).toBe(true);
    expect(itemWith({ content: 'c'.repeat(LIMITS.longText) })).toBe(true);
  });
});

/** Strings and numbers a careless or hostile caller might pass, extremes included. */
const arbString = fc.oneof(
  fc.constantFrom('', 'a', 'deploy', 'a\u0000b', '\uD800', 'x'.repeat(LIMITS.id), 'x'.repeat(LIMITS.id + 1), 'x'.repeat(LIMITS.shortText + 1)),
  fc.string({ maxLength: 8 }),
);
const arbNumber = fc.oneof(fc.constantFrom(0, 1, 2, MAX - 1, MAX, MAX + 1, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY), fc.integer({ min: 0, max: 5 }));
const arbInstantText = fc.constantFrom(
  '2026-01-01T00:00:00.000Z',
  '2026-02-30',
  '2024-02-29',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '2026-01-01T10:00:00',
);
const arbLoose = fc.oneof(arbString, arbNumber, fc.constant(undefined));

type Call = (p: EventSourcedProvider) => Promise<unknown>;
const arbCall: fc.Arbitrary<Call> = fc.oneof(
  fc
    .record({ id: fc.option(arbString, { nil: undefined }), title: arbLoose, createdAt: fc.option(arbInstantText, { nil: undefined }) }, { requiredKeys: [] })
    .map((input) => (p: EventSourcedProvider) => p.sessions.create(input as never)),
  fc
    .record({ content: arbLoose, createdAt: fc.option(arbInstantText, { nil: undefined }), role: fc.constantFrom('user', 'robot') })
    .map((input) => async (p: EventSourcedProvider) => {
      const [session] = await p.sessions.list();
      return p.sessions.appendTurn({ sessionId: session?.id ?? 'none', ...input } as never);
    }),
  fc
    .record(
      {
        slug: fc.constantFrom('deploy', 'test'),
        uses: arbNumber,
        wins: arbNumber,
        syncVersion: fc.option(arbNumber, { nil: undefined, freq: 2 }),
        tags: fc.array(fc.oneof({ arbitrary: fc.constant('ops'), weight: 3 }, { arbitrary: arbString, weight: 1 }), { maxLength: 3 }),
        createdAt: arbInstantText,
        name: arbString,
      },
      { requiredKeys: ['slug'] },
    )
    .map((input) => (p: EventSourcedProvider) => p.skills.upsert(input as never)),
  fc.record({ key: fc.constantFrom('deploy', 'test'), success: fc.boolean() }).map(
    ({ key, success }) =>
      (p: EventSourcedProvider) =>
        p.skills.recordOutcome(key, { success }),
  ),
  fc.constantFrom('deploy', 'test').map((key) => (p: EventSourcedProvider) => p.skills.delete(key)),
  fc
    .record({ content: arbLoose, kind: arbLoose, source: arbLoose, createdAt: fc.option(arbInstantText, { nil: undefined }) }, { requiredKeys: ['content'] })
    .map((input) => (p: EventSourcedProvider) => p.memory.write(input as never)),
);

describe('no accepted call writes an event the decoder refuses', () => {
  it('holds for random calls with extreme inputs, and the log replays', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbCall, { maxLength: 25 }), async (calls) => {
        const p = createInMemoryProvider();
        for (const call of calls) {
          await call(p).catch((error: unknown) => {
            // Every refusal is typed, never a raw error.
            if (!(error instanceof AgentStateError)) throw error;
          });
        }
        for (const event of await p.log.read({ stream: STATE_STREAM })) decodeStateEvent(event);
        await replay(p.log);
      }),
      { numRuns: 150 },
    );
  });
});
