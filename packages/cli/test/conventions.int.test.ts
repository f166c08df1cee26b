/**
 * `agentstate`, `agentstate mcp` and `agentstate-mcp` keep one set of
 * conventions: `--version` prints the bare version, a bad flag exits 1, a
 * foreign or damaged database exits 2, the environment refusing exits 3.
 * Each is run as the real binary; the two MCP programs also give the same
 * message for the same failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openSqlite } from '@agentstate/sqlite';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, tempDir } from './helpers.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const MCP_BIN = fileURLToPath(new URL('../../mcp/dist/bin.js', import.meta.url));

const tmp = tempDir();
afterAll(tmp.cleanup);

/** A program, and the arguments that make it open the database at a path. */
interface Program {
  name: string;
  /** Names this program's files in the shared folder. */
  tag: string;
  argv: string[];
  opening: (db: string) => string[];
}

const PROGRAMS: Program[] = [
  { name: 'agentstate', tag: 'cli', argv: [BIN], opening: (db) => ['stats', '--db', db] },
  { name: 'agentstate mcp', tag: 'cli-mcp', argv: [BIN, 'mcp'], opening: (db) => ['--db', db] },
  { name: 'agentstate-mcp', tag: 'mcp', argv: [MCP_BIN], opening: (db) => ['--db', db] },
];

function run(program: Program, args: string[]): { code: number; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };
  // stdin is closed at once: a server that did start would stop when its client goes away.
  const r = spawnSync(process.execPath, [...program.argv, ...args], { env, input: '', encoding: 'utf8', timeout: HANG_GUARD_MS });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe.each(PROGRAMS)('$name', (program) => {
  it('prints the bare version for --version and -V, exit 0', () => {
    for (const flag of ['--version', '-V']) {
      const r = run(program, [flag]);
      expect([r.code, r.stderr], flag).toEqual([0, '']);
      expect(r.stdout, flag).toMatch(/^\d+\.\d+\.\d+\n$/);
    }
  });

  it('exits 1 for a bad flag, naming it after the program name', () => {
    const r = run(program, ['--no-such-flag']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^${program.name}: .*no-such-flag`));
  });

  it('exits 2 for a file that is not an agentstate database, leaving it unchanged', () => {
    const notes = tmp.path(`notes-${program.tag}.txt`);
    writeFileSync(notes, 'not a database\n');
    const r = run(program, program.opening(notes));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('is not a SQLite database');
    expect(readFileSync(notes, 'utf8')).toBe('not a database\n');
  });

  it('exits 3 when the environment refuses: a folder where the database should be', () => {
    const folder = tmp.path(`folder-${program.tag}`);
    mkdirSync(folder);
    const r = run(program, program.opening(folder));
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('it is a folder, not a database file');
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
      const a = run(cli, args);
      const b = run(mcp, args);
      expect([a.code, b.code], args.join(' ')).toEqual([code, code]);
      expect(a.stderr.replaceAll('agentstate mcp', 'PROGRAM'), args.join(' ')).toBe(b.stderr.replaceAll('agentstate-mcp', 'PROGRAM'));
    }
  });
});
