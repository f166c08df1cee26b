import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate demo', () => {
  it('creates a sample state in a temporary database and shows recall and verification', () => {
    const out = ok(['demo']);
    const path = /^agentstate demo: a sample agent state in (\S+)$/m.exec(out)?.[1];
    expect(path && existsSync(path)).toBe(true);
    expect(out).toContain('1 session with 4 turns, 3 skills with outcomes, 5 memory items: 18 events in the log.');
    expect(out).toContain('$ npx --no -- agentstate memory recall deploy --mode lexical');
    expect(out).toMatch(/1\.000\s+fact\s+.*Staging deploys run on Cloudflare Workers/);
    expect(out).toContain('ok: the tables equal a replay of all 18 events, byte for byte');
    expect(out).toContain(`export AGENTSTATE_DB=${path}`);
    expect(out).not.toMatch(/^\s*(\$ )?agentstate (?!demo:)/m);
    expect(okJson(['skills', 'list', '--db', path!]).map((s: { slug: string }) => s.slug)).toEqual(['release-notes', 'rollback', 'safe-migration']);
  });

  it('prints commands that run as printed in a checkout after npm ci, where agentstate is not on the PATH', () => {
    const out = ok(['demo']);
    const explore = out.slice(out.indexOf('Explore it yourself'));
    const db = /^ {2}export AGENTSTATE_DB=(\S+)$/m.exec(explore)?.[1];
    const commands = [...explore.matchAll(/^ {2}npx --no -- agentstate (.+)$/gm)].map((m) => m[1]!.split(' '));
    expect(commands.map((c) => c.join(' '))).toEqual(['sessions list', 'log tail', 'stats', '--help']);
    const checkout = fileURLToPath(new URL('../../..', import.meta.url));
    const env = {
      ...process.env,
      AGENTSTATE_DB: db,
      NO_COLOR: '1',
      PATH: process.env
        .PATH!.split(':')
        .filter((p) => !p.includes('node_modules'))
        .join(':'),
    };
    for (const args of commands) {
      const run = spawnSync('npx', ['--no', '--', 'agentstate', ...args], { cwd: checkout, env, encoding: 'utf8', timeout: HANG_GUARD_MS });
      expect({ args, code: run.status, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
  });

  it('writes into a given new database and prints JSON for scripts', () => {
    const db = tmp.path('demo.db');
    const result = okJson(['demo', '--db', db]);
    expect(result.db).toBe(db);
    expect(result.events).toBe(18);
    expect(result.turns).toHaveLength(4);
    expect(result.recall.lexical[0].content).toBe('Staging deploys run on Cloudflare Workers');
    expect(result.verify).toMatchObject({ ok: true, events: 18 });
  });

  it('refuses to write into an existing database', () => {
    const db = tmp.path('demo.db');
    expect(fails(1, ['demo', '--db', db])).toContain('exists');
  });
});
