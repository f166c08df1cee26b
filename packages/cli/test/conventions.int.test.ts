/**
 * `agentstate`, `agentstate mcp` and `agentstate-mcp` keep one set of
 * conventions: `--version` prints the bare version, a bad flag exits 1, a
 * foreign or damaged database exits 2, the environment refusing exits 3.
 * The checks of output and exit codes run each program's entry inside the
 * test's process with its own streams; the two executables are also run as
 * processes, where what they add (the version answered before the commands
 * load, the exit code handed to the process) is what is checked. The two MCP
 * programs also give the same message for the same failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openSqlite } from '@agentstate/sqlite';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, type Result, tempDir } from './helpers.js';
import { cli } from './in-process.js';
import { runMain } from '../../mcp/test/helpers.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const MCP_BIN = fileURLToPath(new URL('../../mcp/dist/bin.js', import.meta.url));
const ENV = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };

const tmp = tempDir();
afterAll(tmp.cleanup);

/** A program, run in this process, and the arguments that make it open the database at a path. */
interface Program {
  name: string;
  /** Names this program's files in the shared folder. */
  tag: string;
  run: (args: string[]) => Result | Promise<Result>;
  opening: (db: string) => string[];
}

const PROGRAMS: Program[] = [
  { name: 'agentstate', tag: 'cli', run: (args) => cli(args, { env: ENV }), opening: (db) => ['stats', '--db', db] },
  { name: 'agentstate mcp', tag: 'cli-mcp', run: (args) => cli(['mcp', ...args], { env: ENV }), opening: (db) => ['--db', db] },
  { name: 'agentstate-mcp', tag: 'mcp', run: runMain, opening: (db) => ['--db', db] },
];

/** Runs an executable as a process; stdin is closed at once, so a server that did start would stop. */
function spawned(bin: string, args: string[]): Result {
  const r = spawnSync(process.execPath, [bin, ...args], { env: ENV, input: '', encoding: 'utf8', timeout: HANG_GUARD_MS });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A file that is not an agentstate database. */
function notes(tag: string): string {
  const path = tmp.path(`notes-${tag}.txt`);
  writeFileSync(path, 'not a database\n');
  return path;
}

describe.each(PROGRAMS)('$name', (program) => {
  it('prints the bare version for --version and -V, exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await program.run([flag]);
      expect([r.code, r.stderr], flag).toEqual([0, '']);
      expect(r.stdout, flag).toMatch(/^\d+\.\d+\.\d+\n$/);
    }
  });

  it('exits 1 for a bad flag, naming it after the program name', async () => {
    const r = await program.run(['--no-such-flag']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^${program.name}: .*no-such-flag`));
  });

  it('exits 2 for a file that is not an agentstate database, leaving it unchanged', async () => {
    const path = notes(program.tag);
    const r = await program.run(program.opening(path));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('is not a SQLite database');
    expect(readFileSync(path, 'utf8')).toBe('not a database\n');
  });

  it('exits 3 when the environment refuses: a folder where the database should be', async () => {
    const folder = tmp.path(`folder-${program.tag}`);
    mkdirSync(folder);
    const r = await program.run(program.opening(folder));
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('it is a folder, not a database file');
  });
});

describe.each([
  { name: 'agentstate', bin: BIN, opening: (db: string) => ['stats', '--db', db] },
  { name: 'agentstate-mcp', bin: MCP_BIN, opening: (db: string) => ['--db', db] },
])('the $name executable', ({ name, bin, opening }) => {
  it('prints the bare version and exits with the code of the failure, as a process', () => {
    expect(spawned(bin, ['--version'])).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/), stderr: '' });
    const r = spawned(bin, opening(notes(`${name}-process`)));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${name}: .*is not a SQLite database`));
  });
});

describe('agentstate mcp and agentstate-mcp', () => {
  it('give the same exit code and the same message for bad flags and for foreign or newer databases', async () => {
    const other = tmp.path('other-app.db');
    const db = new Database(other);
    db.exec('CREATE TABLE accounts (id INTEGER PRIMARY KEY)');
    db.close();
    const newer = tmp.path('newer.db');
    await (await openSqlite(newer)).close();
    const raw = new Database(newer);
    raw.prepare("UPDATE store_meta SET value = '999' WHERE key = 'derived_version'").run();
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const [cli, mcp] = [PROGRAMS[1]!, PROGRAMS[2]!];
    const cases: [string[], number][] = [
      [['--no-such-flag'], 1],
      [['--embedder', 'bogus'], 1],
      [['--scope'], 1],
      [['unexpected'], 1],
      [['--db', other], 2],
      [['--db', newer], 2],
    ];
    for (const [args, code] of cases) {
      const a = await cli.run(args);
      const b = await mcp.run(args);
      expect([a.code, b.code], args.join(' ')).toEqual([code, code]);
      expect(a.stderr.replaceAll('agentstate mcp', 'PROGRAM'), args.join(' ')).toBe(b.stderr.replaceAll('agentstate-mcp', 'PROGRAM'));
    }
  });
});
