/**
 * Old events keep reading: `fixtures/v2` holds an export written by the
 * library at payload schema version 2 (each `session.turn_appended` carrying
 * the session's post-image, every turn whole) and the snapshot that library
 * folded it to. Today's code replays it to the same state (its tombstones
 * given the clock of their turn's append), and a write after it continues
 * the same stream at the current version.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AppendInput } from '../src/index.js';
import { decodeStateEvent, EventTypes, InMemoryLog, replay, STATE_SCHEMA_VERSION, STATE_STREAM } from '../src/index.js';
import { givenAppendClocks } from '../../../tools/append-clocks.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/v2/', import.meta.url));
const lines = readFileSync(`${FIXTURES}export.jsonl`, 'utf8').split('\n').filter(Boolean);
const events = lines.map((line) => JSON.parse(line) as AppendInput & { seq: number; trailer?: unknown }).filter((e) => e.trailer === undefined);
/** What that library folded, but that today's fold gives each tombstone the clock of its turn's append. */
const expected = givenAppendClocks(
  JSON.parse(readFileSync(`${FIXTURES}snapshot.json`, 'utf8')) as { sessions: { id: string; deleted: boolean }[]; turns: { id: string; deleted: boolean }[] },
  events.map((e) => e.payload),
);

async function v2Log(): Promise<InMemoryLog> {
  const log = new InMemoryLog();
  for (const { seq: _seq, ...input } of events) await log.append(input);
  return log;
}

describe('a log written at payload schema version 2', () => {
  it('is the fixture it claims to be: every event at version 2, every append carrying its session', () => {
    expect(events.length).toBe(20);
    expect(new Set(events.map((e) => e.schemaVersion))).toEqual(new Set([2]));
    const appends = events.filter((e) => e.type === EventTypes.TurnAppended);
    expect(appends.length).toBeGreaterThan(5);
    for (const e of appends) expect(Object.keys(e.payload as object)).toContain('session');
  });

  it('decodes every event, each append with the session it carried', () => {
    for (const [i, e] of events.entries()) {
      const change = decodeStateEvent({ ...e, stream: STATE_STREAM, seq: i + 1, time: e.time!, schemaVersion: 2 });
      expect(change.payload).toEqual(e.payload);
    }
  });

  it('replays to the state the library that wrote it folded, and continues at the current version', async () => {
    const log = await v2Log();
    const p = await replay(log);
    expect(await p.snapshot()).toEqual(expected);
    const session = expected.sessions.find((s) => !s.deleted)!;
    await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'later' });
    const [last] = await log.read({ stream: STATE_STREAM, afterSeq: events.length });
    expect(last).toMatchObject({ type: EventTypes.TurnAppended, schemaVersion: STATE_SCHEMA_VERSION });
    // Old and new events together replay to what the live provider reads.
    expect(await (await replay(log)).snapshot()).toEqual(await p.snapshot());
  });
});
