/**
 * Import accepts exactly the logs the live API could have written. Any log
 * that live writers (two processes' worth, with skewed clocks, on one real
 * SQLite file) produce imports to the same state; a log broken against the
 * fold's rules is refused with the line that breaks it, and leaves nothing.
 * The import runs in process here (real files, the command's own code);
 * one case runs through the binary for the exit code and the message.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import type { LogEvent } from '@agentstate/core';
import { ManualClock, STATE_STREAM, createInMemoryProvider, encodeSnapshot, seededEntropy } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { arbOperations, runOperations } from '@agentstate/testing/arbitraries';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/errors.js';
import { importInto } from '../src/import.js';
import { exportText } from './generate.js';
import { fails, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

let files = 0;
const OPTIONS = { allowUntrailed: false, quiet: true };

/** Writes `events` (renumbered from 1) as an export with a valid trailer; returns its path and a fresh target. */
function exportOf(events: readonly LogEvent[]): { file: string; target: string } {
  files += 1;
  const file = tmp.path(`export-${files}.jsonl`);
  writeFileSync(file, exportText(events.map((e, i) => ({ ...e, seq: i + 1 }))));
  return { file, target: tmp.path(`imported-${files}.db`) };
}

describe('any log written through the live API', () => {
  it('imports, and equals the database it came from', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(0, 1), arbOperations({ maxLength: 8 })), { minLength: 1, maxLength: 6 }), async (turns) => {
        files += 1;
        const path = tmp.path(`live-${files}.db`);
        // Two writers on one file, one clock 10 s behind: updates cross origins and clocks disagree.
        const clocks = [new ManualClock(Date.UTC(2026, 0, 1)), new ManualClock(Date.UTC(2026, 0, 1) - 10_000)];
        const writers = await Promise.all(clocks.map((clock, i) => openSqlite(path, { clock, instanceId: `writer-${i}`, entropy: seededEntropy(i + 1) })));
        try {
          for (const [w, ops] of turns) await runOperations(writers[w]!, ops, { clock: clocks[w]! });
          const events = await writers[0]!.log.read({ stream: STATE_STREAM });
          const { file, target } = exportOf(events);
          const report = await importInto(file, target, OPTIONS);
          const expected = createHash('sha256')
            .update(encodeSnapshot(await writers[0]!.snapshot()))
            .digest('hex');
          expect(report).toMatchObject({ events: events.length, sha256: expected, trailer: true });
        } finally {
          for (const w of writers) await w.close();
        }
      }),
      { numRuns: 20 },
    );
  });
});

/** The events of a script run on a fresh in-memory provider with fixed ids. */
async function logOf(script: (p: ReturnType<typeof createInMemoryProvider>) => Promise<unknown>): Promise<LogEvent[]> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(5), instanceId: 'live' });
  await script(p);
  return p.log.read({ stream: STATE_STREAM });
}

/** The records of an event payload, open to editing. */
type Payload = Record<'session' | 'turn' | 'skill' | 'item', Record<string, unknown>>;

/** A copy of `event` with its payload changed by `edit`. */
function edited(event: LogEvent, edit: (payload: Payload) => void): LogEvent {
  const payload = structuredClone(event.payload) as Payload;
  edit(payload);
  return { ...event, payload };
}

describe('a log the live API could not have written', () => {
  // s1 created, two turns, deleted; m1 written then deleted; skill deploy created, an outcome, deleted.
  const base = logOf(async (p) => {
    await p.sessions.create({ id: 's1', title: 'first' });
    await p.sessions.appendTurn({ sessionId: 's1', role: 'user', content: 'one' });
    await p.sessions.appendTurn({ sessionId: 's1', role: 'assistant', content: 'two' });
    await p.memory.write({ id: 'm1', content: 'a fact' });
    await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
    await p.skills.recordOutcome('deploy', { success: true });
    await p.sessions.delete('s1');
    await p.memory.delete('m1');
    await p.skills.delete('deploy');
  });
  const at = (i: number): Promise<LogEvent> => base.then((e) => e[i]!);
  const [created, turn1, turn2, memory, skill, outcome, deleted, memoryDeleted] = [at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7)] as const;

  const cases: Array<[string, () => Promise<LogEvent[]>, RegExp]> = [
    [
      'a turn of a session that does not exist',
      async () => [
        await created,
        edited(await turn1, (p) => {
          p.turn.sessionId = 'ghost';
        }),
      ],
      /line 2: session\.turn_appended: session "ghost" does not exist or is deleted/,
    ],
    [
      'a turn of a deleted session',
      async () => {
        const other = await logOf(async (p) => {
          await p.sessions.create({ id: 's1', title: 'first' });
          await p.sessions.delete('s1');
        });
        return [...other, await turn1];
      },
      /line 3: session\.turn_appended: session "s1" does not exist or is deleted/,
    ],
    [
      'a duplicated turn seq',
      async () => [await created, await turn1, edited(await turn2, (p) => (p.turn.seq = 1))],
      /line 3: .*turn seq 1 of session "s1", expected 2/,
    ],
    ['a skipped turn seq', async () => [await created, edited(await turn1, (p) => (p.turn.seq = 2))], /line 2: .*turn seq 2 of session "s1", expected 1/],
    [
      'a turn id already taken',
      async () => {
        const first = await turn1;
        return [await created, first, edited(await turn2, (p) => (p.turn.id = (first.payload as Payload).turn.id))];
      },
      /line 3: session\.turn_appended: turn id "[^"]+" is already taken/,
    ],
    ['a second creation of a session id', async () => [await created, await created], /line 2: session\.created: session id "s1" is already taken/],
    ['a second creation of a memory id', async () => [await memory, await memory], /line 2: memory\.written: memory id "m1" is already taken/],
    [
      'a new skill where one already lives',
      async () => [await skill, edited(await skill, (p) => (p.skill.id = 'another'))],
      /line 2: skill\.upserted: skill "deploy" in this scope already exists with id/,
    ],
    [
      'an update whose syncVersion does not follow',
      // A turn's event carries no session (schema version 3): the deletion's does.
      async () => [await created, edited(await deleted, (p) => (p.session.syncVersion = 5))],
      /line 2: .*syncVersion 5 follows 1, expected 2/,
    ],
    [
      'an originInstanceId that changes',
      async () => [
        await created,
        edited(await deleted, (p) => {
          p.session.syncVersion = 2;
          p.session.originInstanceId = 'someone-else';
        }),
      ],
      /line 2: .*originInstanceId changed from "live"/,
    ],
    [
      'a clock that does not move forward',
      async () => {
        const first = await created;
        return [
          first,
          edited(await turn1, (p) => {
            // The session's next version takes the turn's clock.
            p.turn.updatedHlc = (first.payload as Payload).session.updatedHlc;
          }),
        ];
      },
      /line 2: .*updatedHlc did not move forward/,
    ],
    ['a deletion of a memory item that does not exist', async () => [await memoryDeleted], /line 1: memory\.deleted: memory item "m1" does not exist/],
    [
      'a second deletion',
      async () => [await created, await turn1, await turn2, await deleted, await deleted],
      /line 5: .*session "s1" does not exist or is deleted/,
    ],
    [
      'an erasedBy that points at no purge (history would show "erased by #999999" beside the text)',
      async () => [{ ...(await memory), payload: { ...((await memory).payload as object), erasedBy: 999999 } }],
      /line 1: event 1 is marked erased by 999999, but the log ends at seq 1/,
    ],
    [
      'an erasedBy that points at a purge of another record',
      async () => {
        const purged = await logOf(async (p) => {
          await p.memory.write({ id: 'm1', content: 'a fact' });
          await p.memory.write({ id: 'm2', content: 'another fact' });
          await p.purge({ id: 'm2', reason: 'request' });
        });
        return [{ ...purged[0]!, payload: { ...(purged[0]!.payload as object), erasedBy: 3 } }, ...purged.slice(1)];
      },
      /line 3: event 1 is marked erased by 3, which purged none of its records/,
    ],
    [
      'an outcome that adds two uses',
      async () => [await skill, edited(await outcome, (p) => (p.skill.uses = 2))],
      /line 2: skill.outcome_recorded: uses 2, expected 0 \+ 1/,
    ],
  ];

  for (const [what, events, message] of cases) {
    it(`refuses ${what}, naming the line, and imports nothing`, async () => {
      const { file, target } = exportOf(await events());
      const error = await importInto(file, target, OPTIONS).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toMatch(/nothing was imported$/);
      expect(existsSync(target)).toBe(false);
      expect(readdirSync(tmp.dir).filter((f) => f.includes('.importing-'))).toEqual([]);
    });
  }

  it('says so through the command: exit 1, one line', async () => {
    const { file, target } = exportOf([await created, await turn1, edited(await turn2, (p) => (p.turn.seq = 1))]);
    expect(fails(1, ['import', file, '--db', target])).toMatch(
      /^agentstate: line 3: session\.turn_appended: turn seq 1 of session "s1", expected 2 \(the live API never writes this\); nothing was imported$/,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a forged erasedBy through the command: exit 1, one line', async () => {
    const { file, target } = exportOf([{ ...(await memory), payload: { ...((await memory).payload as object), erasedBy: 999999 } }]);
    expect(fails(1, ['import', file, '--db', target])).toMatch(
      /^agentstate: line 1: event 1 is marked erased by 999999, but the log ends at seq 1 \(the live API never writes this\); nothing was imported$/,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('refuses event times that go back, as two writers with skewed clocks once wrote them: exit 1, the line named, nothing imported', async () => {
    const first = await created;
    const back = { ...(await turn1), time: '2025-12-31T23:00:00.000Z' };
    const { file, target } = exportOf([first, back, await turn2]);
    expect(fails(1, ['import', file, '--db', target])).toBe(
      `agentstate: line 2: "time" 2025-12-31T23:00:00.000Z is earlier than ${first.time}, the time of the state event before it (line 1): times never decrease along a stream; nothing was imported`,
    );
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(tmp.dir).filter((f) => f.includes('.importing-'))).toEqual([]);
  });
});
