/** `--scope` paths on the command line, descendants, and `agentstate namespaces`. */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate scopes and namespaces', () => {
  const db = tmp.path('scopes.db');

  it('takes --scope as a slash path, a JSON array or / for global', () => {
    expect(okJson(['sessions', 'create', '--title', 'web', '--scope', 'team/web', '--db', db]).scope).toEqual(['team', 'web']);
    expect(okJson(['sessions', 'create', '--title', 'api', '--scope', '["team","web","a/b"]', '--db', db]).scope).toEqual(['team', 'web', 'a/b']);
    expect(okJson(['sessions', 'create', '--title', 'global', '--scope', '/', '--db', db]).scope).toEqual([]);
    expect(okJson(['memory', 'write', 'labelled fact', '--scope', 'project:web/workspace:api', '--db', db]).scope).toEqual(['project:web', 'workspace:api']);
    expect(okJson(['skills', 'upsert', 'deploy', '--scope', 'team', '--db', db]).scope).toEqual(['team']);
  });

  it('refuses an empty label, and the level flags of before --scope, writing nothing', () => {
    expect(fails(1, ['memory', 'write', 'x', '--scope', 'team//web', '--db', db])).toMatch(/--scope/);
    for (const flag of ['--instance', '--project', '--workspace'])
      expect(fails(1, ['memory', 'write', 'x', flag, 'web', '--db', db])).toMatch(/unknown option/);
    expect(okJson(['memory', 'recall', '--db', db])).toHaveLength(1);
  });

  it('lists sessions by scope, with --descendants too', () => {
    const titles = (args: string[]) => okJson<{ title: string }[]>(['sessions', 'list', ...args, '--db', db]).map((s) => s.title);
    expect(titles(['--scope', 'team/web'])).toEqual(['web']);
    expect(titles(['--scope', 'team/web', '--descendants'])).toEqual(['web', 'api']);
    expect(titles(['--scope', 'team', '--descendants'])).toEqual(['web', 'api']);
    expect(titles([])).toEqual(['web', 'api', 'global']);
  });

  it('lists the namespaces, under a prefix and cut to a depth', () => {
    expect(ok(['namespaces', '--db', db])).toBe('global\nproject:web/workspace:api\nteam\nteam/web\n["team","web","a/b"]\n');
    expect(okJson(['namespaces', '--prefix', 'team', '--depth', '2', '--db', db])).toEqual([['team'], ['team', 'web']]);
  });
});
