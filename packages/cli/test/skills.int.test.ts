import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { failAll, fails, head, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

interface Skill {
  id: string;
  slug: string;
  name: string;
  body: string;
  tags: string[];
  scope: string[];
  uses: number;
  wins: number;
  check: string;
  version: number;
  syncVersion: number;
  deleted: boolean;
}

describe('agentstate skills', () => {
  const db = tmp.path('skills.db');

  it('upserts from flags: create, then update keeping what was left out', () => {
    expect(
      ok(['skills', 'upsert', 'deploy', '--name', 'Deploy', '--body', 'ship it', '--tag', 'ops', '--tag', 'ci', '--check', 'npm test', '--db', db]),
    ).toMatch(/^created skill deploy \(global\), version 1, syncVersion 1, id /);
    const updated = okJson<Skill>(['skills', 'upsert', 'deploy', '--body', 'ship faster', '--db', db]);
    expect(updated).toMatchObject({ slug: 'deploy', name: 'Deploy', body: 'ship faster', tags: ['ops', 'ci'], check: 'npm test', version: 2, syncVersion: 2 });
  });

  it('upserts from a JSON file, with flags overriding it and the body from a file', () => {
    const file = tmp.path('skill.json');
    writeFileSync(file, JSON.stringify({ slug: 'deploy', name: 'Deploy alpha', body: 'from the file', tags: ['alpha'] }));
    const body = tmp.path('body.md');
    writeFileSync(body, '1. build\n2. ship\n');
    const skill = okJson<Skill>(['skills', 'upsert', '--file', file, '--scope', 'project:alpha', '--body-file', body, '--db', db]);
    expect(skill).toMatchObject({
      slug: 'deploy',
      name: 'Deploy alpha',
      body: '1. build\n2. ship\n',
      scope: ['project:alpha'],
      version: 1,
    });
  });

  it('lists by exact scope', () => {
    expect(okJson<Skill[]>(['skills', 'list', '--db', db]).map((s) => s.name)).toEqual(['Deploy']);
    expect(okJson<Skill[]>(['skills', 'list', '--scope', 'project:alpha', '--db', db]).map((s) => s.name)).toEqual(['Deploy alpha']);
    expect(okJson<Skill[]>(['skills', 'list', '--scope', 'project:beta', '--db', db])).toEqual([]);
    const table = ok(['skills', 'list', '--scope', 'project:alpha', '--db', db]);
    expect(table).toMatch(/^SLUG\s+NAME\s+SCOPE\s+VER\s+SYNC\s+WINS\s+TAGS\s+ID\n/);
    expect(table).toContain('project:alpha');
    expect(ok(['skills', 'list', '--scope', 'project:beta', '--db', db])).toBe('(no skills in this scope)\n');
  });

  it('gets by id or slug, resolving along the scope chain', () => {
    const global = okJson<Skill>(['skills', 'show', 'deploy', '--db', db]);
    expect(global.name).toBe('Deploy');
    expect(okJson<Skill>(['skills', 'show', global.id, '--db', db]).id).toBe(global.id);
    expect(okJson<Skill>(['skills', 'show', 'deploy', '--scope', 'project:alpha/workspace:w1', '--db', db]).name).toBe('Deploy alpha');
    const text = ok(['skills', 'show', 'deploy', '--db', db]);
    expect(text).toMatch(/^outcomes: +0 wins of 0 uses$/m);
    expect(text.trim().endsWith('ship faster')).toBe(true);
  });

  it('searches by prefix tokens, with scope, order and limit', () => {
    ok(['skills', 'upsert', 'rollback', '--name', 'Roll back', '--body', 'git revert, then redeploy', '--tag', 'ops', '--db', db]);
    // One slug in two scopes: by id, which each skill's scope and slug give.
    expect(okJson<Skill[]>(['skills', 'search', 'ship', '--db', db]).map((s) => s.name)).toEqual(['Deploy alpha', 'Deploy']);
    expect(okJson<Skill[]>(['skills', 'search', 'faster', '--db', db]).map((s) => s.name)).toEqual(['Deploy']);
    expect(okJson<Skill[]>(['skills', 'search', 'faster revert', '--db', db])).toEqual([]);
    expect(okJson<Skill[]>(['skills', 'search', 'faster revert', '--match', 'any', '--db', db]).map((s) => s.slug)).toEqual(['deploy', 'rollback']);
    expect(okJson<Skill[]>(['skills', 'search', 'OPS', '--db', db]).map((s) => s.slug)).toEqual(['deploy', 'rollback']);
    expect(okJson<Skill[]>(['skills', 'search', 'ops', '--limit', '1', '--db', db])).toHaveLength(1);
    expect(okJson<Skill[]>(['skills', 'search', 'build', '--scope', 'project:alpha', '--db', db]).map((s) => s.name)).toEqual(['Deploy alpha']);
    expect(okJson<Skill[]>(['skills', 'search', 'ship OR "(', '--db', db])).toEqual([]);
    expect(ok(['skills', 'search', 'nothing-like-this', '--db', db])).toBe('(no matching skills)\n');
  });

  it('records outcomes without changing the content version', () => {
    expect(ok(['skills', 'outcome', 'rollback', '--success', '--db', db])).toContain('1 wins of 1 uses');
    const after = okJson<Skill>(['skills', 'outcome', 'rollback', '--failure', '--db', db]);
    expect(after).toMatchObject({ uses: 2, wins: 1, version: 1, syncVersion: 3 });
  });

  it('shows the syncVersion that --sync-version expects in text output', () => {
    expect(ok(['skills', 'show', 'rollback', '--db', db])).toMatch(/^version: +1$[\s\S]*^syncVersion: +3 /m);
    expect(ok(['skills', 'search', 'rollback', '--db', db]).split('\n')[1]).toMatch(/^rollback +Roll back +global +1 +3 +1\/2 /);
    fails(1, ['skills', 'upsert', 'rollback', '--body', 'stale', '--sync-version', '1', '--db', db]);
    expect(ok(['skills', 'upsert', 'rollback', '--body', 'fresh', '--sync-version', '3', '--db', db])).toMatch(/version 2, syncVersion 4,/);
  });

  it('deletes; then get and a second delete are not found', () => {
    expect(ok(['skills', 'delete', 'rollback', '--db', db])).toBe('deleted skill rollback (global)\n');
    fails(1, ['skills', 'show', 'rollback', '--db', db]);
    expect(fails(1, ['skills', 'delete', 'rollback', '--db', db])).toBe('agentstate: skill not found: rollback');
  });

  it('refuses bad input and stale versions with exit 1 and no event', async () => {
    const before = head(db);
    const file = (name: string, text: string): string => {
      const path = tmp.path(name);
      writeFileSync(path, text);
      return path;
    };
    const notJson = file('bad.json', '{ "slug": ');
    const lines = await failAll(1, [
      ['skills', 'upsert', '--file', notJson, '--db', db],
      ['skills', 'upsert', '--file', file('array.json', '[1, 2]'), '--db', db],
      ['skills', 'upsert', '--file', file('tags.json', JSON.stringify({ slug: 'x', tags: 'not-a-list' })), '--db', db],
      ['skills', 'upsert', '--name', 'no slug', '--db', db],
      ['skills', 'upsert', '', '--db', db],
      ['skills', 'upsert', 'deploy', '--body', 'x', '--sync-version', '1', '--db', db],
      ['skills', 'upsert', 'deploy', '--body', 'x', '--body-file', notJson, '--db', db],
      ['skills', 'outcome', 'deploy', '--db', db],
      ['skills', 'outcome', 'deploy', '--success', '--failure', '--db', db],
      ['skills', 'outcome', 'missing', '--success', '--db', db],
      ['skills', 'search', 'x', '--order', 'random', '--db', db],
      ['skills', 'show', 'missing', '--db', db],
    ]);
    expect(lines[0]).toContain('is not valid JSON');
    expect(lines[2]).toContain('invalid tags');
    expect(lines[5]).toMatch(/conflict|syncVersion/i);
    expect(lines[7]).toContain('say how the run went: --success or --failure');
    expect(lines[8]).toContain('give one of --success and --failure, not both');
    expect(head(db)).toBe(before);
  });
});

describe('agentstate skills by slug without a scope flag (issue 12)', () => {
  const db = tmp.path('unscoped.db');

  it("deletes only the global skill, then refuses and names the scopes instead of deleting project p's", () => {
    ok(['skills', 'upsert', 'deploy', '--body', 'global', '--db', db]);
    ok(['skills', 'upsert', 'deploy', '--body', 'p', '--scope', 'project:p', '--db', db]);
    expect(ok(['skills', 'delete', 'deploy', '--db', db])).toBe('deleted skill deploy (global)\n');
    const before = head(db);
    const refusal = 'agentstate: skill not found: deploy (not in the global scope; live in project:p: pass a scope to name one)';
    expect(fails(1, ['skills', 'delete', 'deploy', '--db', db])).toBe(refusal);
    expect(fails(1, ['skills', 'outcome', 'deploy', '--success', '--db', db])).toBe(refusal);
    expect(fails(1, ['skills', 'show', 'deploy', '--db', db])).toBe(refusal);
    expect(head(db)).toBe(before);
    expect(okJson<Skill>(['skills', 'show', 'deploy', '--scope', 'project:p', '--db', db])).toMatchObject({ body: 'p', uses: 0, deleted: false });
    expect(ok(['skills', 'delete', 'deploy', '--scope', 'project:p', '--db', db])).toBe('deleted skill deploy (project:p)\n');
  });

  it('records an outcome on the global skill only', () => {
    ok(['skills', 'upsert', 'lint', '--body', 'global', '--db', db]);
    ok(['skills', 'upsert', 'lint', '--body', 'p', '--scope', 'project:p', '--db', db]);
    expect(okJson<Skill>(['skills', 'outcome', 'lint', '--success', '--db', db])).toMatchObject({ scope: [], uses: 1 });
    expect(okJson<Skill>(['skills', 'show', 'lint', '--scope', 'project:p', '--db', db])).toMatchObject({ body: 'p', uses: 0 });
  });
});

describe('agentstate skills upsert and the slug alphabet (issue 12)', () => {
  it('refuses a slug outside it, saying the rule, and creates no database', () => {
    const db = tmp.path('slugs.db');
    for (const slug of ['Bad Slug!', '../..']) {
      expect(fails(1, ['skills', 'upsert', slug, '--body', 'x', '--db', db])).toMatch(
        /^agentstate: invalid slug: must be lowercase ASCII letters and digits with single "-", "_" or "\." between them/,
      );
    }
    expect(existsSync(db)).toBe(false);
    expect(ok(['skills', 'upsert', 'db.migrate_v2', '--body', 'x', '--db', db])).toMatch(/^created skill db\.migrate_v2 /);
  });
});
