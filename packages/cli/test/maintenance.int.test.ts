import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { failAll, ok, okJson } from './in-process.js';

const WRITER = fileURLToPath(new URL('./fixtures/writer.mjs', import.meta.url));

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate verify, rebuild, snapshot and stats', () => {
  const db = tmp.path('state.db');

  beforeAll(() => {
    ok(['demo', '--db', db]);
  });

  it('verifies a healthy database', () => {
    expect(ok(['verify', '--db', db])).toMatch(/^ok: the tables equal a replay of all 18 events, byte for byte\n {2}snapshot sha256 [0-9a-f]{64} /);
    const report = okJson(['verify', '--db', db]);
    expect(report).toMatchObject({ ok: true, events: 18, tablesSeq: 18, differences: [], storedSnapshot: null, skippedSnapshots: [] });
  });

  it('reports counts, sizes, the head and the last snapshot', () => {
    const stats = okJson(['stats', '--db', db]);
    expect(stats).toMatchObject({
      path: db,
      head: 18,
      sessions: { live: 1, deleted: 0 },
      turns: 4,
      skills: { live: 3, deleted: 0 },
      memory: { live: 5, deleted: 0 },
      lastSnapshot: null,
    });
    expect(stats.sizeBytes).toBeGreaterThan(0);
    const text = ok(['stats', '--db', db]);
    expect(text).toMatch(/^database: +\S+/);
    expect(text).toMatch(/\nevents: +18 \(/);
    expect(text).toMatch(/\nlast snapshot: +none\n/);
  });

  it('saves a snapshot, which stats and verify then see', () => {
    const saved = okJson(['snapshot', '--db', db]);
    expect(saved).toMatchObject({ seq: 18 });
    ok(['memory', 'write', 'after the snapshot', '--db', db]);
    expect(okJson(['stats', '--db', db]).lastSnapshot).toMatchObject({ seq: 18, behind: 1 });
    expect(okJson(['verify', '--db', db])).toMatchObject({ ok: true, events: 19, storedSnapshot: { seq: 18, matches: true } });
    expect(ok(['stats', '--db', db])).toMatch(/\nlast snapshot: +seq 18, .* 1 events behind\n/);
  });

  it('rebuilds the tables from the log, to the same bytes', () => {
    const before = ok(['snapshot', '--print', '--db', db]);
    expect(ok(['rebuild', '--db', db])).toMatch(/^rebuilt the tables from the snapshot at seq 18 and 1 later events in \d+\.\d\d s\n$/);
    expect(okJson(['rebuild', '--from-scratch', '--db', db])).toMatchObject({ seq: 19, snapshotSeq: 0, events: 19, skipped: [] });
    expect(ok(['rebuild', '--from-scratch', '--db', db])).toMatch(/^rebuilt the tables from 19 events in /);
    expect(ok(['snapshot', '--print', '--db', db])).toBe(before);
    expect(JSON.parse(before)).toMatchObject({ format: 'agentstate.snapshot/3', seq: 19 });
  });

  it('verifies while another process keeps writing', async () => {
    const writer = spawn(process.execPath, [WRITER, db, '600'], { stdio: 'inherit' });
    const exited = new Promise<number | null>((resolve) => writer.on('exit', resolve));
    let runs = 0;
    let done = false;
    void exited.then(() => {
      done = true;
    });
    while (!done || runs === 0) {
      expect(okJson(['verify', '--db', db]).ok).toBe(true);
      runs += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await exited).toBe(0);
    expect(okJson(['verify', '--db', db])).toMatchObject({ ok: true, events: 619 });
  });

  it('says that facts written since the last semantic search wait for vectors as a matter of course, not as a fault', () => {
    const file = tmp.path('vectors.db');
    const session = ok(['sessions', 'create', '--title', 'chat', '--db', file]).trim();
    ok(['sessions', 'append', session, '--content', 'Deploy is failing on staging', '--db', file]);
    // A search by meaning that may write makes the vector tables of the embedder; later writes have no vector until the next one.
    ok(['sessions', 'search', 'anything', '--db', file]);
    ok(['memory', 'write', 'The user prefers dark mode', '--db', file]);
    const report = okJson(['verify', '--db', file]);
    expect(report.ok).toBe(true);
    expect(Object.values(report.pendingVectors)).toEqual([1]);
    const text = ok(['verify', '--db', file]);
    expect(text).toMatch(/^ {2}1 memory item not embedded yet by \S+: normal after writes, not damage; the next semantic or hybrid recall .* derives/m);
    expect(text).not.toMatch(/wait for a vector/);
  });

  it('exits 2 on a file that is not an agentstate database', async () => {
    const text = tmp.path('notes.db');
    writeFileSync(text, 'these are my notes, not a database\n'.repeat(100));
    const runs = [['verify'], ['stats'], ['sessions', 'list'], ['memory', 'write', 'x'], ['log', 'tail'], ['export']];
    for (const line of await failAll(
      2,
      runs.map((args) => [...args, '--db', text]),
    ))
      expect(line).toMatch(/^agentstate: .*not a SQLite database/);
    expect(readFileSync(text, 'utf8')).toBe('these are my notes, not a database\n'.repeat(100));
  });

  it('exits 1 on a database that does not exist, creating nothing', async () => {
    const missing = tmp.path('missing.db');
    const out = tmp.path('missing.jsonl');
    const runs = [['verify'], ['rebuild'], ['snapshot'], ['snapshot', '--print'], ['stats'], ['export', '--out', out], ['log', 'show']];
    for (const line of await failAll(
      1,
      runs.map((args) => [...args, '--db', missing]),
    ))
      expect(line).toContain(`no agentstate database at ${missing}`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(out)).toBe(false);
  });
});
