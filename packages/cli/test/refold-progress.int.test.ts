/**
 * A command that opens a file an earlier version wrote folds its tables
 * again from its log, and says so on stderr when that is long (10,000
 * events or more): one line as it starts and `done` as it ends, stderr not
 * being a terminal here; a short fold, and every later open, say nothing.
 * A read command still refuses such a file, saying to open it writable once.
 */
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { DERIVED_VERSION } from '@agentstate/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { generateEvents, writeDatabase } from './generate.js';
import { tempDir } from './helpers.js';
import { cli, fails } from './in-process.js';

const SCHEMA13 = fileURLToPath(new URL('../../sqlite/test/fixtures/schema13/state.db.gz', import.meta.url));

const tmp = tempDir();
afterAll(tmp.cleanup);

/** Marks the file as written by the version before this one: its next writable open folds its tables again. */
function lowerDerivedVersion(path: string): void {
  const db = new Database(path);
  db.prepare("UPDATE store_meta SET value = ? WHERE key = 'derived_version'").run(String(DERIVED_VERSION - 1));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

describe('the fold on open of a file an earlier version wrote', () => {
  it('is told of on stderr, a line then done, when it folds 10,000 events or more', async () => {
    const path = tmp.path('large.db');
    await writeDatabase(path, await generateEvents(12_000));
    lowerDerivedVersion(path);
    expect(fails(2, ['stats', '--db', path])).toContain('open it writable once first');
    const first = cli(['memory', 'sweep', '--db', path]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('folding 12,000 events of the log into the tables…\ndone\n');
    const again = cli(['memory', 'sweep', '--db', path]);
    expect(again.stderr).toBe('');
    expect(cli(['stats', '--db', path]).code).toBe(0);
  });

  it('says nothing for a short one: the schema-13 fixture', () => {
    const path = tmp.path('schema13.db');
    writeFileSync(path, gunzipSync(readFileSync(SCHEMA13)));
    const r = cli(['memory', 'sweep', '--db', path]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});
