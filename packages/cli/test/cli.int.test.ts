import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ok as okProcess, tempDir } from './helpers.js';
import { cli, fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('the agentstate command line', () => {
  it('prints its version and help with exit 0', () => {
    // The executable answers the version alone before the command tree loads; the tree answers it too.
    expect(okProcess(['--version'])).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(ok(['--version'])).toBe(okProcess(['--version']));
    const help = ok(['--help']);
    for (const command of ['sessions', 'skills', 'memory', 'log', 'verify', 'rebuild', 'snapshot', 'stats', 'export', 'import', 'demo']) {
      expect(help).toContain(`  ${command}`);
    }
    expect(ok(['sessions', '--help'])).toContain('append [options] <session-id>');
  });

  it("shows how to choose the database in every command's help, the inspector's included", () => {
    for (const command of [['ui'], ['memory', 'recall'], ['stats']]) {
      const help = ok([...command, '--help']);
      expect(help, command.join(' ')).toMatch(/^Global Options:\n[\s\S]*--db <path> +the database file, or a postgres:\/\/ URL/m);
    }
  });

  it('says in the help how the two sweeps differ: a fact past its own expiry, and what a retention policy expires', () => {
    expect(ok(['memory', 'sweep', '--help'])).toMatch(/past\s+its\s+own\s+expiry[\s\S]*`retention\s+apply`/);
    expect(ok(['retention', 'apply', '--help'])).toMatch(/a\s+policy\s+expires\s+now[\s\S]*`memory\s+sweep`/);
  });

  it('is linked as `agentstate` at the repository root, where npx finds it', () => {
    const link = fileURLToPath(new URL('../../../node_modules/.bin/agentstate', import.meta.url));
    const r = spawnSync(link, ['stats', '--json', '--db', tmp.path('linked.db')], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^agentstate: no agentstate database at /);
  });

  it('shows usage and exits 1 when given no command', () => {
    const r = cli([]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Usage: agentstate');
  });

  it('reports unknown commands and options in one line, exit 1', () => {
    expect(fails(1, ['frobnicate'])).toBe("agentstate: unknown command 'frobnicate'");
    expect(fails(1, ['sessions', 'list', '--colour'])).toBe("agentstate: unknown option '--colour'");
    expect(fails(1, ['sessions', 'show'])).toBe("agentstate: missing required argument 'id'");
    expect(fails(1, ['sessions', 'list', '--db'])).toContain("option '--db <path>' argument missing");
  });

  it('finds the database in --db, else AGENTSTATE_DB, else .agentstate/state.db', () => {
    const cwd = tmp.path('project');
    mkdirSync(cwd);
    fails(1, ['sessions', 'list'], { cwd });
    ok(['memory', 'write', 'in the default database'], { cwd });
    expect(existsSync(join(cwd, '.agentstate', 'state.db'))).toBe(true);
    expect(okJson(['memory', 'recall'], { cwd }).map((h: { content: string }) => h.content)).toEqual(['in the default database']);

    const fromEnv = tmp.path('env.db');
    ok(['memory', 'write', 'in the env database'], { cwd, env: { AGENTSTATE_DB: fromEnv } });
    expect(okJson(['memory', 'recall', '--db', fromEnv], { cwd })[0].content).toBe('in the env database');
    expect(okJson(['memory', 'recall', '--db', join(cwd, '.agentstate', 'state.db')], { cwd, env: { AGENTSTATE_DB: fromEnv } })[0].content).toBe(
      'in the default database',
    );
  });

  it('accepts the global flags before or after the command', () => {
    const db = tmp.path('flags.db');
    ok(['--db', db, 'sessions', 'create', '--title', 'before']);
    expect(okJson(['--json', '--db', db, 'sessions', 'list'])).toHaveLength(1);
    expect(okJson(['sessions', 'list', '--db', db])).toHaveLength(1);
  });
});
