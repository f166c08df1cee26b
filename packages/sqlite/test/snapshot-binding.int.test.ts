/**
 * Stored snapshots are bound to their store and their content (docs/contract.md §8), on
 * real files changed behind the library's back: an edited unsealed snapshot,
 * a snapshot row copied from another database, a log truncated behind a
 * snapshot (and grown again differently) and snapshots of earlier formats
 * (stored by versions without bindings or before chunks) are all skipped,
 * and rebuild equals a full fold.
 */
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeSnapshot, STATE_STREAM } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import type { SqliteProvider } from '../src/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

async function populate(p: SqliteProvider, label: string, n = 3): Promise<void> {
  const s = await p.sessions.create({ title: label });
  for (let i = 0; i < n; i += 1) {
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: `${label} turn ${i}` });
    await p.memory.write({ content: `${label} fact ${i}` });
  }
}

/** Runs SQL on the file through a second connection, as a careless operator would. */
function tamper(path: string, sql: string, ...params: unknown[]): void {
  const db = new Database(path);
  db.prepare(sql).run(...params);
  db.close();
}

/** The tables' canonical text after a rebuild from scratch: the truth the log holds. */
async function fullFold(p: SqliteProvider): Promise<string> {
  await p.rebuild({ fromScratch: true });
  return encodeSnapshot(await p.snapshot());
}

describe('a stored snapshot bound to its store', () => {
  it('is skipped when its unsealed content was edited, and rebuild equals a full fold', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await populate(p, 'mine');
    const good = await p.saveSnapshot();
    await p.memory.write({ content: 'after the first snapshot' });
    const edited = await p.saveSnapshot();
    await p.memory.write({ content: 'after the second snapshot' });
    // The chunk only the second snapshot names: one the first shares would damage both.
    tamper(
      path,
      'UPDATE snapshots SET data = replace(data, ?, ?) WHERE instr(data, ?) > 0',
      'after the first snapshot',
      'never written',
      'after the first snapshot',
    );

    const result = await p.rebuild();
    expect(result.snapshotSeq).toBe(good.seq);
    expect(result.skipped).toEqual([{ seq: edited.seq, reason: expect.stringContaining('does not match its SHA-256 digest'), damaged: true }]);
    expect(await p.memory.recall({ query: 'never written' })).toEqual([]);
    const rebuilt = encodeSnapshot(await p.snapshot());
    expect(rebuilt).toBe(await fullFold(p));
    await p.close();
  });

  it('is skipped when its row was copied from another database at the same seq', async () => {
    const mine = tmp.file('mine.db');
    const theirs = tmp.file('theirs.db');
    const p = await openSqlite(mine);
    const q = await openSqlite(theirs);
    await populate(p, 'mine');
    await populate(q, 'theirs');
    expect(await p.log.identity()).not.toBe(await q.log.identity());
    const foreign = await q.saveSnapshot();
    expect(foreign.seq).toBe(await p.log.head(STATE_STREAM));
    await q.close();
    const db = new Database(mine);
    db.prepare('ATTACH DATABASE ? AS theirs').run(theirs);
    db.exec('INSERT INTO snapshots (stream, seq, data) SELECT stream, seq, data FROM theirs.snapshots');
    db.close();

    const result = await p.rebuild();
    expect(result.snapshotSeq).toBe(0);
    expect(result.skipped).toEqual([{ seq: foreign.seq, reason: expect.stringContaining('taken from another log'), damaged: true }]);
    expect(await p.memory.recall({ query: 'theirs' })).toEqual([]);
    expect(encodeSnapshot(await p.snapshot())).toBe(await fullFold(p));
    await p.close();
  });

  it('is skipped when the log behind it was truncated, or truncated and grown again differently', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await populate(p, 'mine');
    const early = await p.saveSnapshot();
    await populate(p, 'later', 1);
    const late = await p.saveSnapshot();
    await p.close();

    // Truncated: the snapshot lies beyond the head and is not used.
    const truncated = tmp.file('truncated.db');
    copyFileSync(path, truncated);
    tamper(truncated, 'DELETE FROM events WHERE stream = ? AND seq > ?', STATE_STREAM, late.seq - 2);
    const t = await openSqlite(truncated);
    const cut = await t.rebuild();
    expect(cut.snapshotSeq).toBe(early.seq);
    expect(encodeSnapshot(await t.snapshot())).toBe(await fullFold(t));

    // Grown again past the snapshot with other events: the event at its seq is not the one it was taken after.
    await populate(t, 'rewritten', 1);
    expect(await t.log.head(STATE_STREAM)).toBeGreaterThanOrEqual(late.seq);
    const regrown = await t.rebuild();
    expect(regrown.snapshotSeq).toBe(early.seq);
    expect(regrown.skipped).toEqual([{ seq: late.seq, reason: expect.stringContaining(`the event at seq ${late.seq} is not the one`), damaged: true }]);
    expect(await t.memory.recall({ query: 'later' })).toEqual([]);
    expect(encodeSnapshot(await t.snapshot())).toBe(await fullFold(t));
    await t.close();
  });

  it('keeps its store identity across reopening; a copy of the whole file is the same store', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await populate(p, 'mine');
    const identity = await p.log.identity();
    const saved = await p.saveSnapshot();
    await p.close();
    const copy = tmp.file('copy.db');
    copyFileSync(path, copy);
    for (const file of [path, copy]) {
      const again = await openSqlite(file);
      expect(await again.log.identity()).toBe(identity);
      expect(await again.rebuild()).toMatchObject({ snapshotSeq: saved.seq, skipped: [] });
      await again.close();
    }
  });
});

describe('snapshots stored by versions without bindings or before chunks', () => {
  it('are skipped as of an earlier format, which verify notes but does not fail; rebuild folds the log and the next save drops them', async () => {
    // A file with events and, stored beside them by an older version, an unbound whole snapshot (format 3).
    const path = tmp.file();
    const source = await openSqlite(path);
    await populate(source, 'old');
    const events = await source.log.read({ stream: STATE_STREAM });
    const oldSnapshot = encodeSnapshot(await source.snapshot());
    await source.close();
    const raw = new Database(path);
    const insert = raw.prepare('INSERT INTO snapshots (stream, seq, data) VALUES (?, ?, ?)');
    insert.run(STATE_STREAM, events.length, oldSnapshot);
    // Below it, a head of parts (format 4) and its memory part, as the version before chunks stored them.
    insert.run(STATE_STREAM, events.length - 1, '{"format":"agentstate.snapshot/4","parts":{},"seq":5}');
    insert.run(`${STATE_STREAM}#memory`, events.length - 1, '{"memory":[]}');
    raw.close();

    const p = await openSqlite(path);
    const result = await p.rebuild();
    expect(result.snapshotSeq).toBe(0);
    const earlier = (seq: number) => ({ seq, reason: expect.stringContaining('earlier snapshot format'), damaged: false });
    expect(result.skipped).toEqual([earlier(events.length), earlier(events.length - 1)]);
    expect(encodeSnapshot(await p.snapshot())).toBe(oldSnapshot);
    const report = await p.verify();
    expect([report.ok, report.skippedSnapshots]).toEqual([true, [earlier(events.length), earlier(events.length - 1)]]);
    await p.memory.write({ content: 'one more' });
    await p.saveSnapshot();
    const rows = () => {
      const db = new Database(path, { readonly: true });
      const found = db.prepare("SELECT stream, seq FROM snapshots WHERE stream NOT LIKE 'state#chunk/%' ORDER BY seq").all();
      db.close();
      return found;
    };
    expect(rows()).toEqual([{ stream: STATE_STREAM, seq: events.length + 1 }]);
    expect(await p.rebuild()).toMatchObject({ snapshotSeq: events.length + 1, skipped: [] });
    expect((await p.verify()).skippedSnapshots).toEqual([]);
    await p.close();
  });
});
