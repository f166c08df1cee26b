/**
 * Every path that folds a SQLite file's log applies core's fold rules and
 * refuses the same logs alike: a log the live API could not have written
 * (edited behind the library, with valid checksums) is a CorruptionError
 * naming the same seq from rebuild, from the catch-up an open does, and from
 * core's replay (among them a reused operation id and an outcome that adds
 * more than its increment). A refused rebuild leaves the tables as they were.
 */
import Database from 'better-sqlite3';
import { describe, expect, it, afterAll } from 'vitest';
import type { LogEvent } from '@agentstate/core';
import { CorruptionError, createInMemoryProvider, encodeSnapshot, ManualClock, replay, seededEntropy, STATE_STREAM } from '@agentstate/core';
import { eventChecksum, openSqlite, openSqliteLog } from '../src/index.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(tmp.cleanup);
let files = 0;

/** A few events of each kind, written through the live API. */
async function liveEvents(): Promise<LogEvent[]> {
  const p = createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(3), instanceId: 'live' });
  await p.sessions.create({ id: 's1' });
  await p.sessions.appendTurn({ sessionId: 's1', role: 'user', content: 'one' });
  await p.sessions.appendTurn({ sessionId: 's1', role: 'user', content: 'two' });
  await p.memory.write({ id: 'm1', content: 'first' });
  await p.memory.write({ id: 'm2', content: 'second' });
  await p.skills.upsert({ slug: 'deploy', operationId: 'op-1' });
  await p.skills.recordOutcome('deploy', { success: true, operationId: 'op-2' });
  return p.log.read({ stream: STATE_STREAM });
}

/** A payload's records, open to editing. */
type Payload = Record<'session' | 'turn' | 'item' | 'skill' | 'operation', Record<string, unknown>>;

function edited(event: LogEvent, edit: (payload: Payload) => void): LogEvent {
  const payload = structuredClone(event.payload) as Payload;
  edit(payload);
  return { ...event, payload };
}

/** A log file holding `events` (as bare appends), its tables not folded yet. */
async function logFile(events: readonly LogEvent[]): Promise<string> {
  files += 1;
  const path = tmp.file(`fold-${files}.db`);
  const log = openSqliteLog(path);
  await log.appendMany(events.map((e) => ({ stream: e.stream, type: e.type, time: e.time, schemaVersion: e.schemaVersion, payload: e.payload })));
  await log.close();
  return path;
}

/** Replaces the payload of event `seq` in place with a matching checksum, marked as validated: a forgery no checksum catches. */
function forge(path: string, event: LogEvent): void {
  const db = new Database(path);
  const payload = JSON.stringify(event.payload);
  db.prepare('UPDATE events SET type = ?, payload = ?, checksum = ?, validated = 1 WHERE stream = ? AND seq = ?').run(
    event.type,
    payload,
    eventChecksum(event.type, event.schemaVersion, payload),
    STATE_STREAM,
    event.seq,
  );
  db.close();
}

async function refusal(run: () => Promise<unknown>): Promise<CorruptionError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CorruptionError);
  return error as CorruptionError;
}

const cases: Array<[string, (live: LogEvent[]) => LogEvent, RegExp]> = [
  ['a repeated turn seq', (live) => edited(live[2]!, (p) => (p.turn.seq = 1)), /turn seq 1 of session "s1", expected 2/],
  ['a second write of a taken memory id', (live) => ({ ...live[3]!, seq: 5 }), /memory id "m1" is already taken/],
  [
    'a turn of a session that does not exist',
    (live) =>
      edited(live[2]!, (p) => {
        if (p.session) p.session.id = 's2';
        p.turn.sessionId = 's2';
      }),
    /session "s2" does not exist/,
  ],
  ['a reused operation id', (live) => edited(live[6]!, (p) => (p.operation.id = 'op-1')), /operation id "op-1" was already used by the event at seq 6/],
  ['an outcome that adds more than its increment', (live) => edited(live[6]!, (p) => (p.skill.uses = 2)), /skill.outcome_recorded: uses 2, expected 0 \+ 1/],
];

describe('a log that breaks a fold rule', () => {
  for (const [what, forgery, message] of cases) {
    it(`is refused alike by rebuild, the catch-up of an open and replay: ${what}`, async () => {
      const live = await liveEvents();
      const forged = forgery(live);
      const path = await logFile(live);
      const p = await openSqlite(path);
      const before = encodeSnapshot(await p.snapshot());
      forge(path, forged);

      const rebuilt = await refusal(() => p.rebuild({ fromScratch: true }));
      expect(encodeSnapshot(await p.snapshot())).toBe(before);
      await p.close();

      const log = openSqliteLog(path);
      const replayed = await refusal(() => replay(log, { fromScratch: true }));
      await log.close();

      const caughtUp = await refusal(async () => openSqlite(await logFile(live.map((e) => (e.seq === forged.seq ? forged : e)))));

      for (const error of [rebuilt, replayed, caughtUp]) {
        expect(error.seq).toBe(forged.seq);
        expect(error.message).toMatch(message);
      }
      expect(caughtUp.message).toBe(replayed.message);
      expect(rebuilt.message).toBe(replayed.message);
    });
  }
});
