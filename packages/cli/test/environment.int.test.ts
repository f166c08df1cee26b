/**
 * Files the environment makes unusable, through the real binary: read
 * commands open read-only, so they never create or change a file, and work
 * on read-only files and folders; an empty, truncated or foreign file is
 * refused unchanged (exit 2); a folder or a FIFO at the path, a read-only
 * file or folder, a folder where a new file may not be created, a loop of
 * symbolic links, a name too long and a full disk get one line naming the
 * cause and the path (exit 3), never "unexpected SqliteError" (defects 6 and 9 of the
 * hardening issue).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Result } from './helpers.js';
import { failureLine, tempDir } from './helpers.js';
import { cli, failAll, ok, okJson } from './in-process.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const hash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every command that only reads, with arguments that reach the database. */
const READ_COMMANDS: ReadonlyArray<readonly string[]> = [
  ['sessions', 'list'],
  ['sessions', 'show', 'x'],
  ['skills', 'list'],
  ['skills', 'show', 'x'],
  ['skills', 'search', 'x'],
  ['memory', 'recall', 'dark'],
  ['memory', 'show', 'x'],
  ['log', 'tail'],
  ['log', 'show'],
  ['stats'],
  ['verify'],
  ['export'],
  ['snapshot', '--print'],
];

/** A few of them, where running all would only repeat the same open. */
const SOME_READ_COMMANDS = READ_COMMANDS.filter((c) => ['verify', 'export', 'log', 'memory'].includes(c[0]!) && !c.includes('x'));

/** Root ignores file modes: a check of them runs the binary as `nobody`. */
const ROOT = process.getuid?.() === 0;
const CAN_DROP = !ROOT || spawnSync('runuser', ['-u', 'nobody', '--', 'true']).status === 0;

/** The uid the unprivileged runs have, so a file can be given to it. */
const NOBODY = ROOT && CAN_DROP ? Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim()) : undefined;

/** Runs several command lines in one process (`fixtures/runs.mjs`). */
const RUNS = fileURLToPath(new URL('./fixtures/runs.mjs', import.meta.url));

/** The results printed by `fixtures/runs.mjs`, run as `r`. */
function results(r: SpawnSyncReturns<string>): Result[] {
  if (r.status !== 0) throw new Error(`the runs exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Result[];
}

/** Runs the command lines one after the other in one process as `nobody` (as the user when not root). */
function unprivileged(...runs: ReadonlyArray<readonly string[]>): Result[] {
  const command = ROOT ? ['runuser', '-u', 'nobody', '--', process.execPath, RUNS] : [process.execPath, RUNS];
  const env = { ...process.env, NO_COLOR: '1', AGENTSTATE_DB: '' };
  return results(spawnSync(command[0]!, command.slice(1), { input: JSON.stringify({ runs }), encoding: 'utf8', env, timeout: HANG_GUARD_MS }));
}

describe('files the environment makes unusable', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => {
    chmodSync(tmp.dir, 0o755);
    for (const name of readdirSync(tmp.dir)) if (!lstatSync(join(tmp.dir, name)).isSymbolicLink()) chmodSync(join(tmp.dir, name), 0o755);
    tmp.cleanup();
  });

  it('refuses a 0-byte file in every read command, writing nothing into it', async () => {
    const db = tmp.path('empty.db');
    writeFileSync(db, '');
    const lines = await failAll(
      2,
      READ_COMMANDS.map((c) => [...c, '--db', db]),
    );
    for (const line of lines) expect(line).toBe(`agentstate: ${db}: is empty (0 bytes), not a database`);
    // A command that changes records needs a database too; one that creates may start one.
    expect(failureLine(cli(['memory', 'delete', 'x', '--db', db]), 2, [])).toContain('is empty (0 bytes)');
    expect(readFileSync(db).length).toBe(0);
    expect(readdirSync(tmp.dir)).toEqual(['empty.db']);
  });

  it.each([
    ['truncated', (db: string) => truncateSync(db, 4096 * 3), /: is truncated: 12288 bytes, its header says \d+$/],
    ['not SQLite', (db: string) => writeFileSync(db, '{"not": "a database"}\n'), /: is not a SQLite database$/],
  ])('refuses a %s file in read commands and leaves it unchanged', async (_name, damage, message) => {
    const db = tmp.path('state.db');
    ok(['demo', '--db', db]);
    damage(db);
    const before = hash(db);
    const lines = await failAll(
      2,
      SOME_READ_COMMANDS.map((c) => [...c, '--db', db]),
    );
    for (const line of lines) expect(line).toMatch(message);
    expect(hash(db)).toBe(before);
  });

  it('names a folder at the database path (exit 3) and a missing folder (exit 1), creating nothing', () => {
    expect(failureLine(cli(['stats', '--db', tmp.dir]), 3, [])).toBe(`agentstate: cannot open ${tmp.dir}: it is a folder, not a database file`);
    expect(failureLine(cli(['memory', 'write', 'x', '--db', tmp.dir]), 3, [])).toContain('it is a folder, not a database file');
    const missing = tmp.path('no-folder/state.db');
    expect(failureLine(cli(['verify', '--db', missing]), 1, [])).toContain(
      `no agentstate database at ${missing}: the folder ${tmp.path('no-folder')} does not exist`,
    );
    expect(existsSync(tmp.path('no-folder'))).toBe(false);
  });

  it('names a symbolic-link loop and a name too long for the file system (exit 3), in reading and writing commands', () => {
    const loop = tmp.path('loop.db');
    symlinkSync(loop, loop);
    const long = tmp.path(`${'a'.repeat(300)}.db`);
    for (const command of [['stats'], ['memory', 'write', 'x']]) {
      expect(failureLine(cli([...command, '--db', loop]), 3, [])).toBe(`agentstate: cannot open ${loop}: its symbolic links form a loop`);
      expect(failureLine(cli([...command, '--db', long]), 3, [])).toBe(`agentstate: cannot open ${long}: the name is too long for the file system`);
    }
    expect(readdirSync(tmp.dir)).toEqual(['loop.db']);
  });

  it('names a FIFO at the database path as not a regular file (exit 3), never as an empty one', () => {
    const fifo = tmp.path('fifo.db');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const command of [['stats'], ['memory', 'delete', 'x'], ['memory', 'write', 'x']]) {
      expect(failureLine(cli([...command, '--db', fifo]), 3, [])).toBe(`agentstate: cannot open ${fifo}: it is not a regular file`);
    }
  });

  it.runIf(CAN_DROP)('names a folder where a new database cannot be created for want of permission (exit 3), creating nothing', () => {
    const folder = tmp.path('locked');
    mkdirSync(folder);
    chmodSync(tmp.dir, 0o755);
    chmodSync(folder, 0o555);
    const db = join(folder, 'state.db');
    const [write, server] = unprivileged(['memory', 'write', 'x', '--db', db], ['mcp', '--db', db]);
    expect(failureLine(write!, 3, [])).toBe(`agentstate: cannot create ${db}: permission denied`);
    expect(server!.code).toBe(3);
    expect(server!.stderr).toContain(`cannot create ${db}: permission denied`);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('names a missing folder or a folder given to export --out (exit 1), and a read-only folder there (exit 3), leaving nothing', () => {
    const db = tmp.path('state.db');
    ok(['demo', '--db', db]);
    const missing = tmp.path('no-folder/out.jsonl');
    expect(failureLine(cli(['export', '--db', db, '--out', missing]), 1, [])).toBe(
      `agentstate: cannot write ${missing}: the folder ${tmp.path('no-folder')} does not exist`,
    );
    const folder = tmp.path('a-folder');
    mkdirSync(folder);
    for (const force of [[], ['--force']]) {
      expect(failureLine(cli(['export', '--db', db, '--out', folder, ...force]), 1, [])).toBe(
        `agentstate: cannot write ${folder}: it is a folder; name a file`,
      );
    }
    expect(readdirSync(folder)).toEqual([]);
    if (!CAN_DROP) return;
    chmodSync(tmp.dir, 0o755);
    chmodSync(folder, 0o555);
    const out = join(folder, 'out.jsonl');
    expect(failureLine(unprivileged(['export', '--db', db, '--out', out])[0]!, 3, [])).toBe(`agentstate: cannot write ${out}: permission denied`);
    expect(readdirSync(folder)).toEqual([]);
  });

  it.runIf(CAN_DROP)('reads a database in a read-only folder, and refuses a write there with one line (exit 3)', () => {
    const folder = tmp.path('ro');
    mkdirSync(folder);
    const db = join(folder, 'state.db');
    ok(['demo', '--db', db]);
    // A writable open closed last removes the -wal and -shm: SQLite can then create neither.
    ok(['rebuild', '--db', db]);
    const before = hash(db);
    expect(readdirSync(folder)).toEqual(['state.db']);
    // The file is writable by the user; only the folder is not.
    if (NOBODY !== undefined) chownSync(db, NOBODY, NOBODY);
    chmodSync(tmp.dir, 0o755);
    chmodSync(folder, 0o555);
    const reads = unprivileged(...SOME_READ_COMMANDS.map((c) => [...c, '--db', db]), ['memory', 'write', 'more', '--db', db]);
    const write = reads.pop()!;
    SOME_READ_COMMANDS.forEach((command, i) => {
      expect(reads[i]!.stderr, command.join(' ')).toBe('');
      expect(reads[i]!.code, command.join(' ')).toBe(0);
    });
    expect(reads[SOME_READ_COMMANDS.findIndex((c) => c[0] === 'memory')]!.stdout).toContain('dark mode');
    expect(failureLine(write, 3, [])).toBe(`agentstate: cannot write ${db}: its folder is read-only (SQLite creates its -wal and -shm files there)`);
    expect(hash(db)).toBe(before);
    expect(readdirSync(folder)).toEqual(['state.db']);
  });

  it.runIf(CAN_DROP)('reads a read-only file, and refuses a write to it, and an MCP server on it, with one line', () => {
    const db = tmp.path('state.db');
    ok(['demo', '--db', db]);
    const before = hash(db);
    chmodSync(tmp.dir, 0o777);
    chmodSync(db, 0o444);
    const [verify, write, server] = unprivileged(['verify', '--db', db], ['memory', 'write', 'more', '--db', db], ['mcp', '--db', db]);
    expect(verify!.code).toBe(0);
    expect(failureLine(write!, 3, [])).toBe(`agentstate: cannot write ${db}: the file is read-only`);
    // The MCP server writes: it refuses at start instead of failing at the first tool call.
    expect(server!.code).toBe(3);
    expect(server!.stderr).toContain(`cannot write ${db}: the file is read-only`);
    expect(hash(db)).toBe(before);
  });

  it('reports a full disk in one line (exit 3), keeps every acknowledged write, and verifies afterwards', () => {
    const db = tmp.path('state.db');
    ok(['demo', '--db', db]);
    const content = 'a fact long enough to fill pages quickly '.repeat(400);
    // Room for the file as it is and about 64 KiB of -wal: a few writes, then a write fails. SIGXFSZ is ignored by Node.
    // The limit is the process's: one process makes the writes, each a run of its own, until one fails.
    const limitKiB = Math.ceil(statSync(db).size / 1024) + 64;
    const runs = Array.from({ length: 30 }, (_, i) => ['memory', 'write', `${i} ${content}`, '--db', db]);
    const writes = results(
      spawnSync('bash', ['-c', `ulimit -f ${limitKiB} && exec "$0" "$@"`, process.execPath, RUNS], {
        input: JSON.stringify({ runs, untilFailure: true }),
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        timeout: HANG_GUARD_MS,
      }),
    );
    const failure = writes.pop()!;
    const acked = writes.map((r) => r.stdout.trim());
    expect(failureLine(failure, 3, [])).toMatch(new RegExp(`^agentstate: cannot write ${db}: no space left \\(the disk, a quota or a file-size limit is full`));
    expect(acked.length).toBeGreaterThan(0);
    expect(ok(['verify', '--db', db])).toMatch(/^ok: /);
    const stored = okJson<Array<{ id: string }>>(['memory', 'recall', '--limit', '1000', '--db', db]).map((m) => m.id);
    expect(stored).toEqual(expect.arrayContaining(acked));
  });
});
