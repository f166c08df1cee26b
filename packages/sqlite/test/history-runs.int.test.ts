/**
 * History runs (migration 13): a session's history read from rows stored
 * beside it gives exactly what the log gives, event by event (the same file
 * read with its runs dropped), for random writes by two writers with their
 * own linkage, operation ids, suffix replacements, removals and purges; a
 * run is written once per `RUN_LENGTH` versions and never by other appends;
 * a purge, a rebuild and the migration of a schema 12 file write the same
 * runs again; verify finds a run changed on disk, and history reads a run it
 * cannot parse through the log instead.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventSourcedProvider } from '@agentstate/core';
import { ManualClock, seededEntropy } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import { RUN_LENGTH } from '../src/history-runs.js';
import { backToSchema12, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const clock = new ManualClock(Date.UTC(2026, 0, 1));
let seeds = 0;
/** A provider on `path`, each with its own seed: ids never repeat across providers. */
function writer(path: string, instanceId: string, eventMeta?: { actor: string; principal: string }) {
  seeds += 1;
  return openSqlite(path, { clock, entropy: seededEntropy(seeds), instanceId, durability: 'process-crash', ...(eventMeta ? { eventMeta } : {}) });
}

/** A row of `history_runs`. */
type RunRow = { session_id: string; last_seq: number; last_turn: number; versions: string };

/** The stored runs of the file, in key order. */
function runs(path: string): RunRow[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT * FROM history_runs ORDER BY session_id, last_seq').all() as RunRow[];
  } finally {
    db.close();
  }
}

let files = 0;
/** A new file's path in the test's folder. */
function newFile(): string {
  files += 1;
  return tmp.file(`state-${files}.db`);
}

/** The histories of `ids` as the log alone gives them: read from a copy of the file without its runs. */
async function withoutRuns(path: string, ids: readonly string[]) {
  const copy = newFile();
  const db = new Database(path, { readonly: true });
  await db.backup(copy);
  db.close();
  const raw = new Database(copy);
  raw.exec('DELETE FROM history_runs');
  raw.close();
  // Opened read-only: a writable open would not write runs either, but nothing should change the copy.
  const p = openSqlite(copy, { readonly: true });
  const out = await Promise.all(ids.map((id) => p.history(id)));
  await p.close();
  return out;
}

/** One write of the random sequence. */
type Op = { kind: 'append'; by: 0 | 1; operation: boolean } | { kind: 'replace' } | { kind: 'removeLast' } | { kind: 'memory' } | { kind: 'purgeTurn' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 14, arbitrary: fc.record({ kind: fc.constant('append' as const), by: fc.constantFrom(0 as const, 1 as const), operation: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'replace' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'removeLast' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'memory' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'purgeTurn' as const }) },
);

/** Runs `ops` against one session, alternating two writers; returns the session's id. */
async function play(writers: readonly EventSourcedProvider[], ops: readonly Op[]): Promise<string> {
  const [a] = writers;
  const session = await a!.sessions.create({ title: 'long' });
  let n = 0;
  // The ids of the session's live turns, oldest first.
  const live: string[] = [];
  for (const o of ops) {
    clock.advance(o.kind === 'memory' ? 3 : 1);
    if (o.kind === 'append') {
      n += 1;
      const turn = await writers[o.by]!.sessions.appendTurn({
        sessionId: session.id,
        role: n % 2 ? 'user' : 'assistant',
        content: `turn ${n}`,
        ...(o.operation ? { operationId: `op-${session.id}-${n}` } : {}),
      });
      live.push(turn.id);
    } else if (o.kind === 'replace' && live.length > 0) {
      const added = await a!.sessions.replaceSuffix(session.id, { expected: [live.pop()!], turns: [{ role: 'assistant', content: `again ${n}` }] });
      live.push(...added.map((t) => t.id));
    } else if (o.kind === 'removeLast' && live.length > 0) {
      await a!.sessions.removeLastTurn(session.id);
      live.pop();
    } else if (o.kind === 'memory') await a!.memory.write({ key: `k${n % 5}`, content: `note ${n}` });
    else if (o.kind === 'purgeTurn' && live.length > 2) {
      // A purged turn stays in the transcript as an erased tombstone: the suffix calls skip it.
      const [purged] = live.splice(Math.floor(live.length / 2), 1);
      await a!.purge({ id: purged!, reason: 'asked' });
    }
  }
  return session.id;
}

describe('history runs', () => {
  it('give every version exactly as the log does, for random writes by two writers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: RUN_LENGTH * 2, maxLength: RUN_LENGTH * 4 }), async (ops) => {
        const path = newFile();
        const writers = [writer(path, 'a'), writer(path, 'b', { actor: 'agent', principal: 'user-1' })];
        const id = await play(writers, ops);
        const other = await play(writers, ops.slice(0, RUN_LENGTH + 3));
        const read = await Promise.all([id, other].map((s) => writers[0]!.history(s)));
        expect((await writers[0]!.verify()).problems).toEqual([]);
        for (const w of writers) await w.close();
        expect(runs(path).length).toBeGreaterThan(0);
        expect(read).toEqual(await withoutRuns(path, [id, other]));
      }),
      { numRuns: 6 },
    );
  });

  it('are written once per RUN_LENGTH versions, and a rebuild or the migration of a schema 12 file writes the same', async () => {
    const path = newFile();
    const p = writer(path, 'a');
    const session = await p.sessions.create({ title: 'long' });
    const appended = [];
    for (let i = 1; i < RUN_LENGTH; i += 1) appended.push(await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${i}` }));
    await p.close();
    expect(runs(path)).toEqual([]);
    const q = writer(path, 'a');
    await q.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'the 64th' });
    await q.sessions.appendTurns(
      session.id,
      Array.from({ length: RUN_LENGTH * 2 + 5 }, (_, i) => ({ role: 'user' as const, content: `batch ${i}` })),
    );
    await q.close();
    const written = runs(path);
    expect(written.map((r) => [r.last_turn, r.versions.length > 0])).toEqual([
      [RUN_LENGTH, true],
      [RUN_LENGTH * 2, true],
      [RUN_LENGTH * 3, true],
    ]);
    // The first run: the session's creation, read from the log (a negated seq step), then its 64 appends, five numbers each.
    const first = JSON.parse(written[0]!.versions) as { v: number[] };
    expect(first.v).toHaveLength(1 + RUN_LENGTH * 5);
    expect(first.v[0]).toBe(-1);

    const r = writer(path, 'a');
    const before = await r.history(session.id);
    await r.rebuild();
    expect(runs(path).map((run) => run.last_turn)).toEqual([RUN_LENGTH * 3 + 5]);
    expect(await r.history(session.id)).toEqual(before);
    await r.close();

    const db = new Database(path);
    backToSchema12(db);
    db.close();
    const s = writer(path, 'a');
    expect(runs(path)).toHaveLength(1);
    expect(await s.history(session.id)).toEqual(before);
    expect((await s.verify()).problems).toEqual([]);
    await s.close();
  });

  it("are written again by a purge of the session's turns, with the purge in each rewritten version, and dropped by the purge of the session", async () => {
    const path = newFile();
    const p = writer(path, 'a');
    const session = await p.sessions.create({ title: 'long' });
    const turns = await p.sessions.appendTurns(
      session.id,
      Array.from({ length: RUN_LENGTH * 2 }, (_, i) => ({ role: 'user' as const, content: `secret ${i}` })),
    );
    const purge = await p.purge({ id: turns[10]!.id, reason: 'asked' });
    const versions = await p.history(session.id);
    expect(versions.filter((v) => v.erasedBy === purge.seq)).toHaveLength(1);
    expect((await p.verify()).problems).toEqual([]);
    await p.close();
    expect(runs(path).length).toBeGreaterThan(0);
    expect(versions).toEqual((await withoutRuns(path, [session.id]))[0]);

    // A session erased whole keeps no run: each of its events was rewritten.
    const q = writer(path, 'a');
    const whole = await q.purge({ id: session.id, reason: 'gone' });
    const erased = await q.history(session.id);
    expect(erased.slice(0, -1).every((v) => v.erasedBy === purge.seq || v.erasedBy === whole.seq)).toBe(true);
    expect((await q.verify()).problems).toEqual([]);
    await q.close();
    expect(runs(path)).toEqual([]);
    expect(erased).toEqual((await withoutRuns(path, [session.id]))[0]);
  });

  it('that changed on disk are found by verify; one that cannot be parsed is read through the log', async () => {
    const path = newFile();
    const p = writer(path, 'a');
    const session = await p.sessions.create({ title: 'long' });
    await p.sessions.appendTurns(
      session.id,
      Array.from({ length: RUN_LENGTH }, (_, i) => ({ role: 'user' as const, content: `turn ${i}` })),
    );
    const before = await p.history(session.id);
    await p.close();
    const [run] = runs(path);
    // The second append's turn created a millisecond later than it was.
    const stored = JSON.parse(run!.versions) as { v: number[] };
    stored.v[7]! += 1;
    for (const [change, readsAsBefore] of [
      [{ versions: JSON.stringify(stored) }, false],
      [{ versions: 'not a run' }, true],
      // Past the session's last event: history would skip those after it.
      [{ last_seq: run!.last_seq + 1 }, false],
    ] as const) {
      const db = new Database(path);
      db.prepare('UPDATE history_runs SET versions = ?, last_seq = ?').run(
        'versions' in change ? change.versions : run!.versions,
        'last_seq' in change ? change.last_seq : run!.last_seq,
      );
      db.close();
      const q = writer(path, 'a');
      const report = await q.verify();
      expect(report.ok).toBe(false);
      expect(report.problems).toEqual([expect.objectContaining({ part: 'tables', object: 'history_runs', repair: 'rebuild' })]);
      expect((await q.history(session.id)).length).toBe(before.length);
      if (readsAsBefore) expect(await q.history(session.id)).toEqual(before);
      await q.rebuild();
      expect(await q.history(session.id)).toEqual(before);
      expect((await q.verify()).ok).toBe(true);
      await q.close();
    }
  });
});
