/**
 * Fault injection through the command (the hardening issue, "Beyond the
 * list"): a copy of a real database with an index page damaged, a deleted
 * full-text row, a cut file; and `rebuild`, `snapshot` and `verify` racing
 * `memory write` processes on one file. `verify` exits 2 naming the part and
 * the repair whenever the file is damaged, the repair it names works, and no
 * acknowledged write is lost.
 */
import Sqlite from 'better-sqlite3';
import { copyFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenize } from '@agentstate/core';
import { cliAsync, tempDir } from './helpers.js';
import { cli, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);
const original = tmp.path('original.db');
let n = 0;

function copy(): string {
  n += 1;
  const path = tmp.path(`copy-${n}.db`);
  copyFileSync(original, path);
  return path;
}

beforeAll(() => {
  ok(['demo', '--db', original]);
  const db = new Sqlite(original);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
});

describe('agentstate verify on a damaged copy', () => {
  it('a flipped byte in an index page: exit 2, the part and `rebuild`; after the rebuild, ok', () => {
    const db = copy();
    const handle = new Sqlite(db, { readonly: true });
    const page = handle.prepare("SELECT pageno FROM dbstat WHERE name = 'memory_live_recent'").get() as { pageno: number };
    const size = handle.pragma('page_size', { simple: true }) as number;
    handle.close();
    const bytes = readFileSync(db);
    bytes[page.pageno * size - 20]! ^= 0x55;
    writeFileSync(db, bytes);
    const r = cli(['verify', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^DAMAGED tables: memory: .*memory_live_recent/m);
    expect(r.stdout).toMatch(/^repair: run `agentstate rebuild`/m);
    expect(r.stderr).toMatch(/^agentstate: verification failed: memory: .*\(repair: run `agentstate rebuild`/);
    ok(['rebuild', '--db', db]);
    expect(okJson(['verify', '--db', db]).ok).toBe(true);
  });

  it('a deleted full-text row: exit 2 naming the FTS index, with JSON for scripts', () => {
    const db = copy();
    const handle = new Sqlite(db);
    // The index is a contentless secure-delete table: a row leaves it only by FTS5's 'delete' command with the text it indexed.
    const row = handle.prepare('SELECT n, content FROM memory WHERE deleted = 0 ORDER BY n LIMIT 1').get() as { n: number; content: string };
    handle.prepare("INSERT INTO memory_fts (memory_fts, rowid, text) VALUES ('delete', ?, ?)").run(row.n, tokenize(row.content).join(' '));
    handle.close();
    const r = cli(['verify', '--json', '--db', db]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, repair: 'rebuild', problems: [{ part: 'fts', object: 'memory_fts' }] });
    // For people: no line may start with "ok" when a part is damaged, even though the tables equal the log.
    const text = cli(['verify', '--db', db]);
    expect(text.stdout).not.toMatch(/^ok/m);
    expect(text.stdout).toMatch(/^tables ok, but the file is DAMAGED \(below\)/m);
    expect(text.stdout).toMatch(/^DAMAGED fts: memory_fts/m);
  });

  it('a file cut short is never verified ok', () => {
    const db = copy();
    const size = statSync(db).size;
    for (const at of [Math.floor(size / 2), size - 4096]) {
      truncateSync(db, at);
      expect(cli(['verify', '--db', db]).code, `cut at ${at}`).toBe(2);
    }
  });
});

describe('maintenance racing writers', () => {
  it('rebuild, snapshot and verify while writers run: every acknowledged write is kept and the file verifies', async () => {
    const db = copy();
    const writes = Array.from({ length: 6 }, (_, i) => cliAsync(['memory', 'write', `raced fact ${i}`, '--db', db]));
    const maintenance = [cliAsync(['rebuild', '--db', db]), cliAsync(['snapshot', '--db', db]), cliAsync(['verify', '--db', db])];
    const written = await Promise.all(writes);
    const maintained = await Promise.all(maintenance);
    for (const r of [...written, ...maintained]) expect(r.code, r.stderr).toBe(0);
    const report = okJson(['verify', '--db', db]);
    expect(report.ok).toBe(true);
    const ids = written.map((r) => r.stdout.trim());
    for (const id of ids) expect(okJson(['memory', 'show', id, '--db', db]).content).toMatch(/^raced fact/);
  });
});
