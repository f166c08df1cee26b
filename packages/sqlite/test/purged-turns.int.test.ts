/**
 * A live purge's turns in the history index: the purge's seq
 * goes in each erased turn's own row (`purged_seq`), not in a `record_events`
 * row per turn, whose ids are spread over the index. The histories still end
 * with the purge, exactly as the in-memory provider's; a second purge of the
 * same turns shows in their histories too; verify finds the index whole; and
 * a rebuild (from scratch or from a snapshot) writes and reads the same.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventSourcedProvider } from '@agentstate/core';
import { createInMemoryProvider, ManualClock, seededEntropy } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const options = () => ({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(12), instanceId: 'a' });

/** A session of 30 turns beside a memory item, purged twice; the ids and both purges' seqs. */
async function purgedTwice(p: EventSourcedProvider) {
  const session = await p.sessions.create({ title: 'erase me' });
  const item = await p.memory.write({ content: 'kept' });
  const turns = await p.sessions.appendTurns(
    session.id,
    Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `turn ${i}` })),
  );
  const first = await p.purge({ id: session.id, reason: 'first' });
  const second = await p.purge({ id: session.id, reason: 'again' });
  return { session: session.id, item: item.id, turns: turns.map((t) => t.id), first: first.seq, second: second.seq };
}

/** The index rows of the event at `seq`. */
function indexRows(path: string, seq: number): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT record_id FROM record_events WHERE seq = ? ORDER BY record_id').all(seq) as { record_id: string }[]).map((r) => r.record_id);
  } finally {
    db.close();
  }
}

describe("a live purge's turns in the history index", () => {
  it("records the first purge in the turns' rows, a second in the index, and reads both in every history", async () => {
    const path = tmp.file();
    const sqlite = await openSqlite(path, options());
    const memory = createInMemoryProvider(options());
    const ids = await purgedTwice(sqlite);
    await purgedTwice(memory);

    // The first purge's only index row is the session's; its 30 turns hold the seq in their rows.
    expect(indexRows(path, ids.first)).toEqual([ids.session]);
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT DISTINCT purged_seq FROM turns WHERE session_id = ?').all(ids.session)).toEqual([{ purged_seq: ids.first }]);
    db.close();
    // The second finds the rows taken: the turns get index rows for it.
    expect(indexRows(path, ids.second)).toEqual([ids.session, ...ids.turns].sort());

    const histories = async (p: EventSourcedProvider) => Promise.all([ids.session, ids.item, ...ids.turns].map((id) => p.history(id)));
    const expected = await histories(memory);
    expect(await histories(sqlite)).toEqual(expected);
    const turnSeqs = (await sqlite.history(ids.turns[7]!)).map((v) => v.seq);
    expect(turnSeqs.slice(-2)).toEqual([ids.first, ids.second]);
    expect((await sqlite.history(ids.session)).map((v) => v.seq).slice(-2)).toEqual([ids.first, ids.second]);
    expect((await sqlite.verify()).problems).toEqual([]);

    // A rebuild applies each event as a live commit does, and reads the same histories, from scratch or from a snapshot.
    await sqlite.rebuild({ fromScratch: true });
    expect(indexRows(path, ids.first)).toEqual([ids.session]);
    expect(await histories(sqlite)).toEqual(expected);
    expect((await sqlite.verify()).problems).toEqual([]);
    const snapshot = await sqlite.saveSnapshot();
    expect((await sqlite.rebuild()).snapshotSeq).toBe(snapshot.seq);
    expect(await histories(sqlite)).toEqual(expected);
    expect((await sqlite.verify()).problems).toEqual([]);
    await sqlite.close();
    await memory.close();
  });
});
