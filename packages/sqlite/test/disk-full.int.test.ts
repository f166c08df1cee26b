/**
 * Disk full, for real: a child process with a file-size limit (`ulimit -f`)
 * writes until a write fails. Node ignores SIGXFSZ, so the failed write()
 * returns EFBIG to SQLite instead of killing the child. The child must get
 * a typed `DiskFullError`, every acknowledged write must survive, and the
 * file must open and verify afterwards (defect 9 of the hardening issue).
 */
import { canonicalJson } from '@agentstate/core';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import { runUnderFileLimit, tempDir } from './helpers.js';

const ENTRY = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** The child: writes memory items until one fails, printing each acknowledged id, then the error. */
const CHILD = `
import { openSqlite } from ${JSON.stringify(ENTRY)};
const db = await openSqlite(process.argv[2]);
for (let i = 0; ; i += 1) {
  try {
    const item = await db.memory.write({ content: 'fact ' + i + ' ' + 'x'.repeat(1500) });
    process.stdout.write('ack ' + item.id + '\\n');
  } catch (error) {
    process.stdout.write('error ' + JSON.stringify({ name: error.name, code: error.code, path: error.path, message: error.message, cause: error.cause?.code }) + '\\n');
    break;
  }
}
await db.close().catch(() => undefined);
`;

describe('a write that meets a full disk (a file-size limit)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('fails with DiskFullError naming the file, loses no acknowledged write, and leaves a file that verifies', async () => {
    const path = tmp.file();
    // 1000 KiB: creating the schema fits, then a few dozen commits, then the WAL or the file meets the limit.
    const run = runUnderFileLimit(tmp.dir, CHILD, 1000, [path]);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    const acked = lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    const failure = JSON.parse(lines.at(-1)!.replace(/^error /, '')) as Record<string, string>;
    expect(acked.length).toBeGreaterThan(0);
    expect(failure).toMatchObject({ name: 'DiskFullError', code: 'disk_full', path });
    expect(failure.message).toContain(`cannot write ${path}: no space left`);
    expect(failure.message).not.toMatch(/unexpected|SqliteError/);
    expect(failure.cause).toMatch(/^SQLITE_(FULL|IOERR)/);

    const db = await openSqlite(path);
    const stored = (await db.snapshot()).memory.map((m) => m.id);
    // Every acknowledged write is there, and the refused one left nothing.
    expect([...stored].sort()).toEqual([...acked].sort());
    // The tables equal a fold of the log (what `agentstate verify` checks; the CLI test runs verify itself).
    await db.rebuild({ fromScratch: true });
    expect(canonicalJson((await db.snapshot()).memory.map((m) => m.id))).toBe(canonicalJson(stored));
    await db.close();
  });
});
