/** `agentstate sync` (docs/contract.md §12), run in this process: the summary, origins in `log` and `stats`, a merged and a refused concurrent change; with a server in this process, run as a child. */
import { copyFileSync, existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runMcpServer } from '@agentstate/mcp';
import { openSqlite } from '@agentstate/sqlite';
import { cliAsync, failureLine, tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate sync', () => {
  const a = tmp.path('a.db');
  const b = tmp.path('b.db');

  it('creates a new replica, brings both files together, and run again receives nothing', () => {
    const id = ok(['memory', 'write', 'written on a', '--key', 'k', '--db', a]).trim();
    expect(okJson(['sync', a, b, '--json'])).toMatchObject({ a, b, toA: 0, toB: 1, merged: 0, batches: 1 });
    ok(['memory', 'write', 'written on b', '--db', b]);
    expect(okJson(['sync', a, b, '--batch-size', '1', '--json'])).toMatchObject({ toA: 1, toB: 0, merged: 0, batches: 1 });
    expect(okJson(['sync', b, a, '--json'])).toMatchObject({ toA: 0, toB: 0, merged: 0, batches: 0 });
    expect(ok(['memory', 'show', id, '--db', b])).toContain('written on a');
  });

  it('shows where each received event comes from, and how far each origin is received', () => {
    const stats = okJson<{ replica: string; origins: { origin: string; seq: number }[] }>(['stats', '--json', '--db', b]);
    const other = stats.origins.find((o) => o.origin !== stats.replica)!;
    expect(stats.origins).toEqual(
      expect.arrayContaining([
        { origin: stats.replica, seq: 2 },
        { origin: other.origin, seq: 1 },
      ]),
    );
    const lines = ok(['log', 'tail', '--db', b]).trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`memory\\.written .*\\(from ${other.origin} #1\\)$`));
    expect(lines[1]).not.toContain('(from');
  });

  it('merges a fact changed in both files into the same one on both', () => {
    const id = ok(['memory', 'write', 'shared', '--db', a]).trim();
    ok(['sync', a, b]);
    ok(['memory', 'update', id, '--content', 'changed on a', '--db', a]);
    ok(['memory', 'update', id, '--content', 'changed on b', '--db', b]);
    expect(ok(['sync', a, b])).toMatch(
      /^synced .*: 1 event into .*, 1 event into .*, in 2 batches \(\d+\.\d\d s\); 2 events merged with writes made apart: `history` marks the versions that lost as conflicts\n$/,
    );
    const [onA, onB] = [a, b].map((db) => ok(['memory', 'show', id, '--db', db]));
    expect(onA).toBe(onB);
    const won = /changed on ([ab])/.exec(onA ?? '')?.[1];
    const lost = won === 'a' ? 'b' : 'a';
    for (const db of [a, b]) {
      const history = ok(['memory', 'history', id, '--db', db]);
      expect(history, 'the version that lost, marked').toMatch(new RegExp(`\\(conflict\\) changed on ${lost}\n`));
      expect(history.match(/\(conflict\)/g), 'only that one').toHaveLength(1);
    }
  });

  it('merges a skill rewritten in one file while the other records its outcome, and one then purged in both to different counts', async () => {
    const { id } = okJson<{ id: string }>(['skills', 'upsert', 'deploy', '--body', 'v1', '--db', a]);
    ok(['sync', a, b]);
    ok(['skills', 'upsert', 'deploy', '--body', 'v2 on a', '--db', a]);
    ok(['skills', 'outcome', 'deploy', '--success', '--db', b]);
    ok(['sync', a, b]);
    const [onA, onB] = [a, b].map((db) => okJson<{ body: string; uses: number; wins: number }>(['skills', 'show', 'deploy', '--json', '--db', db]));
    expect(onA).toEqual(onB);
    expect(onA).toMatchObject({ body: 'v2 on a', uses: 1, wins: 1 });
    ok(['skills', 'outcome', 'deploy', '--failure', '--db', a]);
    for (const db of [a, b]) ok(['purge', id, '--reason', 'test', '--yes', '--db', db]);
    ok(['sync', a, b]);
    const purged = [];
    for (const db of [a, b]) {
      const store = await openSqlite(db);
      purged.push(await store.skills.getAny(id).finally(() => store.close()));
    }
    expect(purged[0]).toEqual(purged[1]);
    expect(purged[0]).toMatchObject({ body: '[erased]', deleted: true, uses: 2, wins: 1, version: 2 });
  });

  it('refuses a session created in both files under one id, exit 1, naming the record, and writes nothing', async () => {
    const [c, d] = [tmp.path('created-c.db'), tmp.path('created-d.db')];
    const id = ok(['sessions', 'create', '--title', 'on c', '--db', c]).trim();
    // No merge rule covers two creations of one id: a file whose ids collide makes the second.
    const other = await openSqlite(d, { ids: { next: () => id } });
    await other.sessions.create({ title: 'on d' }).finally(() => other.close());
    const heads = [c, d].map((db) => okJson<{ head: number }>(['stats', '--json', '--db', db]).head);
    expect(fails(1, ['sync', c, d])).toContain(`changes record ${id}, which this store changed too`);
    expect([c, d].map((db) => okJson<{ head: number }>(['stats', '--json', '--db', db]).head)).toEqual(heads);
  });

  it('counts in its summary as it speaks: one event, one batch, none', () => {
    const [c, d] = [tmp.path('c.db'), tmp.path('d.db')];
    ok(['memory', 'write', 'one', '--db', c]);
    expect(ok(['sync', c, d])).toMatch(/: 0 events into .*, 1 event into .*, in 1 batch \(/);
    expect(ok(['sync', c, d])).toMatch(/: 0 events into .*, 0 events into .*, in 0 batches \(/);
  });

  it('brings a retention policy set on one file into force on the other: what it expires is hidden there', async () => {
    const [e, f] = [tmp.path('e.db'), tmp.path('f.db')];
    const store = await openSqlite(e);
    const idle = await store.sessions.create({ title: 'idle since 2020', createdAt: '2020-01-01T00:00:00.000Z' }).finally(() => store.close());
    const fresh = ok(['sessions', 'create', '--title', 'fresh', '--db', e]).trim();
    ok(['sync', e, f]);
    ok(['retention', 'set', '--record', 'session', '--max-age', '30d', '--db', e]);
    expect(okJson(['sync', e, f, '--json'])).toMatchObject({ toA: 0, toB: 1, merged: 0, batches: 0 });
    expect(okJson<{ id: string }[]>(['retention', 'list', '--json', '--db', f]).map((policy) => policy.id)).toEqual(['session@*']);
    expect(okJson<{ id: string }[]>(['sessions', 'list', '--json', '--db', f]).map((session) => session.id)).toEqual([fresh]);
    expect(fails(1, ['sessions', 'show', idle.id, '--db', f])).toContain('expired by a retention policy');
  });

  it("limits a sync to a scope's subtree with --scope, as the other commands read a scope", () => {
    const [c, d] = [tmp.path('acme-c.db'), tmp.path('acme-d.db')];
    ok(['memory', 'write', 'acme plan', '--scope', 'acme', '--db', c]);
    ok(['memory', 'write', 'team plan', '--scope', 'acme/team', '--db', c]);
    ok(['memory', 'write', 'globex secret', '--scope', '["globex"]', '--db', c]);
    expect(okJson(['sync', c, d, '--scope', 'acme', '--json'])).toMatchObject({ toA: 0, toB: 2, merged: 0, batches: 1 });
    expect(ok(['memory', 'list', '--db', d])).not.toContain('globex');
    // Held in part: none of the origin's events whole, its first two events of the subtree.
    expect(ok(['stats', '--db', d])).toMatch(/^origin: +[0-9a-f]{32} up to #0, and in part up to #2 \(a scoped sync's\)$/m);
    expect(okJson(['sync', c, d, '--scope', '["acme"]', '--json'])).toMatchObject({ toA: 0, toB: 0, merged: 0, batches: 0 });
    expect(okJson(['sync', c, d, '--json'])).toMatchObject({ toA: 0, toB: 1, merged: 0, batches: 1 });
    expect(fails(1, ['sync', c, d, '--scope', '[1]'])).toContain('--scope');
    // A scope neither holds a record in, most likely misspelt, is said so; one that moved nothing but is held is not.
    expect(ok(['sync', c, d, '--scope', 'acme/taem'])).toMatch(
      /, in 0 batches \(\d+\.\d\d s\); neither holds a live record in acme\/taem: is --scope right\?\n$/,
    );
    expect(ok(['sync', c, d, '--scope', 'acme/team'])).toMatch(/, in 0 batches \(\d+\.\d\d s\)\n$/);
  });

  it('refuses a byte copy of a file, and a file with itself, exit 1, and writes nothing', () => {
    const [original, copy] = [tmp.path('original.db'), tmp.path('copy.db')];
    ok(['memory', 'write', 'before the copy', '--db', original]);
    for (const suffix of ['', '-wal']) if (existsSync(original + suffix)) copyFileSync(original + suffix, copy + suffix);
    ok(['memory', 'write', 'on the original', '--db', original]);
    ok(['memory', 'write', 'on the copy', '--db', copy]);
    const heads = [original, copy].map((db) => okJson<{ head: number }>(['stats', '--json', '--db', db]).head);
    for (const [x, y] of [
      [original, copy],
      [original, original],
    ])
      expect(fails(1, ['sync', x!, y!])).toMatch(/^agentstate: both sides are replica \w+: the same store, or a byte copy of it, .*; nothing was received$/);
    expect([original, copy].map((db) => okJson<{ head: number }>(['stats', '--json', '--db', db]).head)).toEqual(heads);
  });

  it('refuses a mistyped URL on either side, exit 1, rather than making a file in a folder named after its scheme', () => {
    for (const [x, y] of [
      [a, 'htp://127.0.0.1:8765/sync'],
      ['postgress://me@127.0.0.1/agents?schema=team', b],
    ])
      expect(fails(1, ['sync', x!, y!], { cwd: tmp.dir })).toMatch(
        /^agentstate: invalid database path: is a (htp|postgress):\/\/ URL, which names no database: give a file path or a postgres:\/\/ URL$/,
      );
    expect(existsSync(tmp.path('htp:'))).toBe(false);
  });

  it('takes --batch-size as a positive integer, the usage error every count flag gives, text or 0 alike', () => {
    for (const given of ['abc', '0', '-5'])
      expect(fails(1, ['sync', a, b, '--batch-size', given])).toBe(
        `agentstate: option '--batch-size <n>' argument '${given}' is invalid. expected a positive integer.`,
      );
  });
});

describe('agentstate sync with a server', () => {
  const TOKEN = 'a-token-of-32-characters-or-more';

  it('syncs a file with the store a server serves, its token from $AGENTSTATE_MCP_TOKEN or --token', async () => {
    const served = await openSqlite(tmp.path('served.db'));
    const server = await runMcpServer({ provider: served, transport: 'http', http: { port: 0, token: TOKEN }, allowSubscopes: true, log: () => {} });
    const url = server.syncUrl!;
    try {
      const laptop = tmp.path('laptop.db');
      const id = ok(['memory', 'write', 'written on the laptop', '--db', laptop]).trim();
      const first = await cliAsync(['sync', laptop, url, '--json'], { env: { AGENTSTATE_MCP_TOKEN: TOKEN } });
      expect(JSON.parse(first.stdout)).toMatchObject({ toA: 0, toB: 1, merged: 0, batches: 1 });
      expect((await served.memory.get(id)).content).toBe('written on the laptop');
      const again = await cliAsync(['sync', url, laptop, '--token', TOKEN, '--json']);
      expect(JSON.parse(again.stdout)).toMatchObject({ toA: 0, toB: 0, merged: 0, batches: 0 });
      const refused = await cliAsync(['sync', laptop, url, '--token', 'not-the-token-at-all']);
      expect(failureLine(refused, 1, ['sync'])).toMatch(/^agentstate: .*failed with HTTP 401: Unauthorized.* \(the server refused the token given\)$/);
      const without = await cliAsync(['sync', laptop, url], { env: { AGENTSTATE_MCP_TOKEN: '' } });
      expect(failureLine(without, 1, ['sync'])).toMatch(/HTTP 401: .* \(no token was given: set \$AGENTSTATE_MCP_TOKEN or pass --token\)$/);
    } finally {
      await server.close();
      await served.close();
    }
  });
});
