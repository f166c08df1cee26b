/**
 * Import applies the live API's limits: a record the stores would refuse
 * (over a size limit, NUL characters, too many tags, impossible counters or
 * dates) is refused with its line, and nothing is imported; the same record
 * at the limit imports. The decoder enforces these limits, so import, verify
 * and replay all apply them.
 */
import { existsSync, writeFileSync } from 'node:fs';
import type { LogEvent } from '@agentstate/core';
import { LIMITS, ManualClock, STATE_STREAM, createInMemoryProvider, seededEntropy } from '@agentstate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/errors.js';
import { importInto } from '../src/import.js';
import { exportText } from './generate.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

const OPTIONS = { allowUntrailed: false, quiet: true };
let files = 0;

/** One event of each creating kind, written through the live API. */
async function liveEvents(): Promise<{ session: LogEvent; turn: LogEvent; skill: LogEvent; memory: LogEvent }> {
  const p = createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(9), instanceId: 'live' });
  await p.sessions.create({ id: 's1' });
  await p.sessions.appendTurn({ sessionId: 's1', role: 'user', content: 'hello' });
  await p.skills.upsert({ slug: 'deploy', body: 'ship it', tags: ['ops'] });
  await p.memory.write({ id: 'm1', content: 'a fact' });
  const [session, turn, skill, memory] = await p.log.read({ stream: STATE_STREAM });
  return { session: session!, turn: turn!, skill: skill!, memory: memory! };
}

/** The records of an event payload, open to editing. */
type Payload = Record<'session' | 'turn' | 'skill' | 'item', Record<string, unknown>>;

function edited(event: LogEvent, edit: (payload: Payload) => void): LogEvent {
  const payload = structuredClone(event.payload) as Payload;
  edit(payload);
  return { ...event, payload };
}

async function importEvents(events: readonly LogEvent[]) {
  files += 1;
  const file = tmp.path(`limits-${files}.jsonl`);
  const target = tmp.path(`limits-${files}.db`);
  writeFileSync(file, exportText(events.map((e, i) => ({ ...e, seq: i + 1 }))));
  const outcome = await importInto(file, target, OPTIONS).then(
    (report) => ({ report, error: undefined }),
    (error: unknown) => ({ report: undefined, error }),
  );
  return { ...outcome, created: existsSync(target) };
}

describe('import refuses what the live API refuses', () => {
  const live = liveEvents();
  const cases: Array<[string, () => Promise<LogEvent[]>, number]> = [
    ['memory content over the long-text limit', async () => [edited((await live).memory, (p) => (p.item.content = 'x'.repeat(LIMITS.longText + 1)))], 1],
    ['a NUL character in memory content', async () => [edited((await live).memory, (p) => (p.item.content = 'a\u0000b'))], 1],
    ['a NUL character in a session title', async () => [edited((await live).session, (p) => (p.session.title = 'a\u0000b'))], 1],
    ['a NUL character in turn content', async () => [(await live).session, edited((await live).turn, (p) => (p.turn.content = 'a\u0000b'))], 2],
    ['a 50,000-character session id', async () => [edited((await live).session, (p) => (p.session.id = 's'.repeat(50_000)))], 1],
    ['an id one over the id limit', async () => [edited((await live).memory, (p) => (p.item.id = 'm'.repeat(LIMITS.id + 1)))], 1],
    ['100,000 tags', async () => [edited((await live).skill, (p) => (p.skill.tags = Array.from({ length: 100_000 }, (_, i) => `t${i}`)))], 1],
    [
      'one tag over the tag limit',
      async () => [edited((await live).skill, (p) => (p.skill.tags = Array.from({ length: LIMITS.tags + 1 }, (_, i) => `t${i}`)))],
      1,
    ],
    [
      'more wins than uses',
      async () => [
        edited((await live).skill, (p) => {
          p.skill.uses = 1;
          p.skill.wins = 2;
        }),
      ],
      1,
    ],
    ['uses beyond the largest safe integer', async () => [edited((await live).skill, (p) => (p.skill.uses = Number.MAX_SAFE_INTEGER + 1))], 1],
    ['an impossible date', async () => [edited((await live).memory, (p) => (p.item.createdAt = '2026-02-30T00:00:00.000Z'))], 1],
  ];

  for (const [what, events, line] of cases) {
    it(`refuses ${what} on line ${line}, and imports nothing`, async () => {
      const { error, created } = await importEvents(await events());
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toMatch(new RegExp(`^line ${line}: .*nothing was imported$`));
      expect(created).toBe(false);
    });
  }

  it('imports the same records at the limits', async () => {
    const { session, turn, skill, memory } = await liveEvents();
    const { report, error } = await importEvents([
      session,
      turn,
      edited(skill, (p) => {
        p.skill.tags = Array.from({ length: LIMITS.tags }, (_, i) => `t${i}`);
        p.skill.uses = 2;
        p.skill.wins = 2;
      }),
      edited(memory, (p) => {
        p.item.content = 'x'.repeat(LIMITS.longText);
        p.item.id = 'm'.repeat(LIMITS.id);
      }),
    ]);
    expect(error).toBeUndefined();
    expect(report).toMatchObject({ events: 4 });
  });
});
