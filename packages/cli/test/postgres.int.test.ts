/**
 * The `agentstate` command against a PostgreSQL server (the test cluster of
 * packages/postgres): every command takes `--db postgres://…` or
 * AGENTSTATE_DB, the demo (which writes a file) refuses with one clear line, export and
 * import round-trip with SQLite files byte for byte, `verify` and
 * `rebuild` check and repair a schema, and `log tail -f`
 * follows writes of other processes.
 */
import { readFileSync } from 'node:fs';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchema, testServer } from '../../postgres/test/cluster.js';
import { start, tempDir } from './helpers.js';
import { cli, fails, ok, okJson } from './in-process.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the parsed JSON lines freely.
const jsonLines = (text: string): any[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

let server: string;
const schemas: string[] = [];
const tmp = tempDir();

/** A URL naming a fresh schema of the test server. */
function freshUrl(): string {
  const schema = freshSchema('cli');
  schemas.push(schema);
  return `${server}?schema=${schema}`;
}

beforeAll(async () => {
  server = (await testServer()).url;
});

afterAll(async () => {
  for (const s of schemas) await dropSchema(server, s);
  tmp.cleanup();
});

describe('agentstate --db postgres://…', () => {
  it('runs the record commands against a schema, by flag or by AGENTSTATE_DB', () => {
    const db = freshUrl();
    const session = ok(['sessions', 'create', '--title', 'On a server', '--db', db]).trim();
    ok(['sessions', 'append', session, '--content', 'Deploy is failing on staging', '--db', db]);
    ok(['skills', 'upsert', 'rollback', '--body', 'git revert, then redeploy', '--db', db]);
    ok(['memory', 'write', 'The user prefers dark themes', '--db', db]);
    const env = { AGENTSTATE_DB: db };
    expect(okJson(['sessions', 'list'], { env }).map((s: { id: string }) => s.id)).toEqual([session]);
    expect(okJson(['sessions', 'show', session], { env }).turns.map((t: { content: string }) => t.content)).toEqual(['Deploy is failing on staging']);
    expect(okJson(['skills', 'list'], { env }).map((s: { slug: string }) => s.slug)).toEqual(['rollback']);
    expect(okJson(['memory', 'recall', 'dark', '--mode', 'lexical'], { env }).map((h: { content: string }) => h.content)).toEqual([
      'The user prefers dark themes',
    ]);
    const stats = okJson(['stats'], { env });
    expect(stats).toMatchObject({ backend: 'postgres', head: 4 });
    expect(stats.path).toBe(db);
    // The schema's tables with their indexes: a few pages each, never the 0 B of a file that is not there.
    expect(stats.sizeBytes).toBeGreaterThan(8192);
    expect(ok(['stats'], { env })).toMatch(/^size: +\d+(\.\d)? (KiB|MiB)$/m);
    expect(okJson(['snapshot'], { env }).seq).toBe(4);
    expect(jsonLines(ok(['log', 'tail', '--json'], { env })).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('verifies a schema, reports a damaged table row with its repair, and rebuild repairs it', async () => {
    const db = freshUrl();
    ok(['memory', 'write', 'The user prefers dark themes', '--db', db]);
    const id = okJson(['memory', 'write', 'Deploys go out on Tuesdays', '--db', db]).id as string;
    ok(['snapshot', '--db', db]);
    ok(['memory', 'write', 'Staging is in eu-west', '--db', db]);
    const sound = okJson(['verify', '--db', db]);
    expect(sound).toMatchObject({ ok: true, events: 3, tablesSeq: 3, differences: [], storedSnapshot: { seq: 2, matches: true } });
    expect(ok(['verify', '--db', db])).toMatch(/^ok: the tables equal a replay of all 3 events, byte for byte/);
    const schema = new URL(db).searchParams.get('schema')!;
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(`UPDATE "${schema}".memory SET content = 'Deploys go out on Fridays' WHERE id = $1`, [id]);
    } finally {
      await client.end();
    }
    expect(fails(2, ['verify', '--db', db])).toMatch(/^agentstate: verification failed: memory: 1 differ from the log .*run `agentstate rebuild`/);
    const damaged = cli(['verify', '--json', '--db', db]);
    expect(damaged.code).toBe(2);
    expect(JSON.parse(damaged.stdout)).toMatchObject({ ok: false, repair: 'rebuild', differences: [`memory: 1 differ from the log (${id})`] });
    expect(okJson(['rebuild', '--db', db])).toMatchObject({ seq: 3, snapshotSeq: 2, events: 1 });
    expect(okJson(['verify', '--db', db]).ok).toBe(true);
    expect(okJson(['memory', 'show', id, '--db', db]).content).toBe('Deploys go out on Tuesdays');
    expect(ok(['rebuild', '--from-scratch', '--db', db])).toMatch(/^rebuilt the tables from 3 events in/);
  });

  it.each([
    ['a changed table row', `UPDATE memory SET content = 'Deploys go out on Fridays' WHERE id = $id`],
    ['a changed event', `UPDATE events SET payload = replace(payload, 'Tuesdays', 'Fridays') WHERE stream = 'state' AND seq = 2`],
    ['a missing event', `DELETE FROM events WHERE stream = 'state' AND seq = 2`],
  ])('exits from verify with the same code and line for the same damage on SQLite and on PostgreSQL: %s', async (_damage, damage) => {
    const file = tmp.path(`same-damage-${schemas.length}.db`);
    const url = freshUrl();
    const schema = new URL(url).searchParams.get('schema')!;
    const ids = [file, url].map((db) => {
      ok(['memory', 'write', 'The user prefers dark themes', '--db', db]);
      const id = okJson(['memory', 'write', 'Deploys go out on Tuesdays', '--db', db]).id as string;
      ok(['memory', 'write', 'Staging is in eu-west', '--db', db]);
      return id;
    });
    const sound = [file, url].map((db) => cli(['verify', '--db', db]).code);
    expect(sound).toEqual([0, 0]);
    // The same damage behind the library's back, in each backend.
    const handle = new Sqlite(file);
    handle.prepare(damage.replace('$id', '?')).run(...(damage.includes('$id') ? [ids[0]] : []));
    handle.close();
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${schema}"`);
      await client.query(damage.replace('$id', '$1'), damage.includes('$id') ? [ids[1]] : []);
    } finally {
      await client.end();
    }
    const [sqlite, postgres] = [file, url].map((db) => cli(['verify', '--db', db]));
    expect(sqlite!.code, sqlite!.stderr).toBe(2);
    expect(postgres!.code, postgres!.stderr).toBe(2);
    const [pgLine, sqliteLine] = [
      postgres!.stderr.replaceAll(schema, '<db>').replaceAll(ids[1]!, '<id>'),
      sqlite!.stderr.replaceAll(file, '<db>').replaceAll(ids[0]!, '<id>'),
    ];
    if (damage.startsWith('DELETE FROM events')) {
      // Positions may skip numbers on PostgreSQL (docs/contract.md §7): its line names the lost event, not a gap; the advice is the same.
      expect(pgLine).toMatch(/the log has lost the event at seq 2, which the history index names/);
      expect(pgLine.slice(pgLine.indexOf('(repair:'))).toBe(sqliteLine.slice(sqliteLine.indexOf('(repair:')));
    } else expect(pgLine).toBe(sqliteLine);
  });

  it('refuses a schema of a newer version or of another application with exit 2, as a foreign SQLite file', async () => {
    const newer = freshUrl();
    ok(['memory', 'write', 'from a later version', '--db', newer]);
    const foreign = freshUrl();
    const [newerSchema, foreignSchema] = [newer, foreign].map((u) => new URL(u).searchParams.get('schema')!);
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(`UPDATE "${newerSchema}".agentstate_schema SET version = 1000 WHERE part = 'log'`);
      await client.query(`CREATE SCHEMA "${foreignSchema}"; CREATE TABLE "${foreignSchema}".users (id int PRIMARY KEY)`);
    } finally {
      await client.end();
    }
    for (const command of [['stats'], ['memory', 'write', 'x']]) {
      expect(fails(2, [...command, '--db', newer])).toMatch(new RegExp(`^agentstate: ${newerSchema}: has schema version 1000, newer than this library's`));
      expect(fails(2, [...command, '--db', foreign])).toBe(`agentstate: ${foreignSchema}: holds tables of another application, not an agentstate schema`);
    }
  });

  it('refuses the demo, which writes a SQLite file, and keeps a password out of what it prints', () => {
    const db = freshUrl();
    expect(fails(1, ['demo', '--db', db])).toMatch(/the demo writes a new SQLite file/);
    const withPassword = db.replace('postgres@', 'postgres:s3cret@');
    ok(['memory', 'write', 'x', '--db', withPassword]);
    const r = cli(['stats', '--json', '--db', withPassword]);
    expect(r.code).toBe(0);
    expect(`${r.stdout}${r.stderr}`).not.toContain('s3cret');
  });

  it('exports, imports and exports again byte for byte, SQLite → PostgreSQL → SQLite', () => {
    const file = tmp.path('source.db');
    ok(['demo', '--db', file]);
    const fromFile = tmp.path('from-file.jsonl');
    ok(['export', '--out', fromFile, '--db', file]);
    const db = freshUrl();
    expect(okJson(['import', fromFile, '--db', db]).events).toBeGreaterThan(10);
    const fromServer = tmp.path('from-server.jsonl');
    ok(['export', '--out', fromServer, '--db', db]);
    expect(readFileSync(fromServer)).toEqual(readFileSync(fromFile));
    const back = tmp.path('back.db');
    ok(['import', fromServer, '--db', back]);
    const again = tmp.path('again.jsonl');
    ok(['export', '--out', again, '--db', back]);
    expect(readFileSync(again)).toEqual(readFileSync(fromFile));
    // The snapshots agree too.
    expect(ok(['snapshot', '--print', '--db', db])).toBe(ok(['snapshot', '--print', '--db', file]));
  });

  it('imports only into an empty schema, and a refused export stores nothing', () => {
    const db = freshUrl();
    ok(['memory', 'write', 'already here', '--db', db]);
    const file = tmp.path('one.jsonl');
    ok(['export', '--out', file, '--db', db]);
    expect(fails(1, ['import', file, '--db', db])).toMatch(/already holds events up to seq 1: an import fills an empty schema/);
    const target = freshUrl();
    // Cut before its trailer, the export is refused, and the schema stays empty.
    const [first] = readFileSync(file, 'utf8').split('\n');
    const text = first!;
    expect(fails(1, ['import', '-', '--db', target], { input: `${text}\n` })).toMatch(/nothing was imported/);
    expect(fails(1, ['stats', '--db', target])).toMatch(/^agentstate: schema not found: /);
  });

  it('refuses a read of a schema that does not exist, as of a missing file, and creates nothing: a write creates it', () => {
    const db = freshUrl();
    const schema = new URL(db).searchParams.get('schema')!;
    for (const command of [['memory', 'list'], ['stats'], ['log', 'tail'], ['export']])
      expect(fails(1, [...command, '--db', db]), command.join(' ')).toBe(
        `agentstate: schema not found: ${schema} (it holds no agentstate tables yet: a command that writes creates it)`,
      );
    ok(['memory', 'write', 'the first fact', '--db', db]);
    expect(ok(['memory', 'list', '--db', db])).toContain('the first fact');
  });

  it("runs the shell snippet of @agentstate/postgres's README against the server", async () => {
    const readme = readFileSync(new URL('../../postgres/README.md', import.meta.url), 'utf8');
    const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    if (block === undefined) throw new Error('no ```sh block in the postgres README');
    const [support, copy] = [freshUrl(), freshUrl()].map((u) => new URL(u).searchParams.get('schema')!);
    const rewrite = (line: string): string =>
      line
        .replaceAll('postgres://postgres@127.0.0.1:5432/postgres', server)
        .replace('schema=support', `schema=${support}`)
        .replace('schema=copy', `schema=${copy}`);
    const env: Record<string, string> = {};
    const outputs: string[] = [];
    for (const line of block.split('\n').filter(Boolean)) {
      const words = shellWords(rewrite(line), env);
      if (words[0] === 'export') {
        const [name, ...value] = words[1]!.split('=');
        env[name!] = value.join('=');
        continue;
      }
      // Every command runs through npx --no --, which never downloads a registry package of that name.
      expect(words.slice(0, 3)).toEqual(['npx', '--no', '--']);
      // The server's own test (packages/mcp/test/postgres.int.test.ts) serves a URL over MCP.
      if (words[3] === 'agentstate-mcp') continue;
      expect(words[3]).toBe('agentstate');
      const args = words.slice(4);
      if (!args.includes('-f')) {
        outputs.push(ok(args, { env, cwd: tmp.dir }));
        continue;
      }
      const follower = start(args, { env, cwd: tmp.dir });
      await printed(follower).until((out) => out.includes('memory.written'));
      follower.kill('SIGINT');
      await new Promise((resolve) => follower.on('exit', resolve));
    }
    expect(outputs.join('')).toContain('Deploys go out on Tuesdays');
    expect(okJson(['stats', '--db', `${server}?schema=${copy}`]).head).toBe(1);
  });

  it('syncs a file with a schema both ways, and run again receives nothing', () => {
    const [db, file] = [freshUrl(), tmp.path('sync.db')];
    const onServer = ok(['memory', 'write', 'Written on the server', '--db', db]).trim();
    const onLaptop = ok(['memory', 'write', 'Written on the laptop', '--db', file]).trim();
    expect(okJson(['sync', file, db, '--json'])).toMatchObject({ toA: 1, toB: 1 });
    expect(okJson(['sync', db, file, '--json'])).toMatchObject({ toA: 0, toB: 0 });
    // Each side lists the other's origin with how far it holds it, a schema as a file: the laptop's entry is the one
    // its vector had when the sync read it, before the pull (its one write); the server's is its head after the push.
    const [server, laptop] = [okJson<{ replica: string }>(['stats', '--db', db]), okJson<{ replica: string }>(['stats', '--db', file])];
    expect(okJson(['stats', '--db', db]).origins).toEqual(
      expect.arrayContaining([
        { origin: laptop.replica, seq: 1 },
        { origin: server.replica, seq: 2 },
      ]),
    );
    for (const where of [db, file]) {
      expect(ok(['memory', 'show', onServer, '--db', where])).toContain('Written on the server');
      expect(ok(['memory', 'show', onLaptop, '--db', where])).toContain('Written on the laptop');
    }
  });

  it('names a schema in the sync summary without the password of its URL', () => {
    const url = new URL(freshUrl());
    url.password = 'hunter2-secret';
    const file = tmp.path('sync-password.db');
    ok(['memory', 'write', 'Written on the laptop', '--db', file]);
    const text = ok(['sync', file, url.href]);
    expect(text).toContain(`1 event into ${url.href.replace('hunter2-secret', '***')}, in 1 batch`);
    expect(text + ok(['sync', file, url.href, '--json'])).not.toContain('hunter2-secret');
  });

  it('prints the erasure steps after a purge, and compacts the schema with --compact', () => {
    const db = freshUrl();
    const item = okJson<{ id: string }>(['memory', 'write', 'Quince-Ledger code 5521', '--db', db]);
    const text = ok(['purge', item.id, '--reason', 'request', '--yes', '--db', db]);
    expect(text).toMatch(/^purged 0 sessions, 0 turns, 0 skills, 1 memory items/);
    expect(text).toMatch(/On PostgreSQL the erased text stays in the server files until these steps are taken:\n {2}1\. run the compaction/);
    const again = okJson(['purge', '--matching', 'nothing here', '--reason', 'r', '--yes', '--compact', '--db', db]);
    expect(again.seq).toBe(0);
    expect(again.compact.tables).toEqual(expect.arrayContaining(['events', 'memory', 'snapshots']));
    expect(again.compact.walSwitched).toBe(true);
    // The test server recycles WAL segments: the compaction says so.
    expect(again.compact.remaining).toEqual([expect.stringMatching(/^wal_recycle is on/)]);
    expect(again.erasureSteps.length).toBeGreaterThan(1);
  });

  it('follows writes of other processes with log tail -f, until interrupted', async () => {
    const db = freshUrl();
    const session = ok(['sessions', 'create', '--title', 'Tail', '--db', db]).trim();
    const follower = start(['log', 'tail', '-n', '1', '--follow', '--json', '--db', db]);
    const out = printed(follower);
    try {
      await out.until((text) => jsonLines(text).length === 1);
      for (let i = 1; i <= 5; i += 1) ok(['sessions', 'append', session, '--content', `turn ${i}`, '--db', db]);
      await out.until((text) => jsonLines(text).length === 6);
      expect(jsonLines(out.text()).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      follower.kill('SIGINT');
    }
    const code = await new Promise<number | null>((resolve) => follower.on('exit', resolve));
    expect(code).toBe(0);
  });
});

/**
 * What a running command prints, and a wait until it has printed what the
 * test needs: no deadline of its own, since a busy machine may take long
 * (the test's timeout catches a hang); a command that exits first fails it.
 */
function printed(child: ReturnType<typeof start>): { text: () => string; until: (done: (text: string) => boolean) => Promise<void> } {
  let out = '';
  const waiting = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const check of waiting) check();
  });
  return {
    text: () => out,
    until: (done) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!done(out)) return;
          waiting.delete(check);
          resolve();
        };
        child.once('exit', (code) => reject(new Error(`the command exited (${code}) before printing what the test waits for; it printed: ${out}`)));
        waiting.add(check);
        check();
      }),
  };
}

/** The words of one shell line: quotes removed, `$NAME` expanded from `env`. */
function shellWords(line: string, env: Record<string, string>): string[] {
  const expand = (text: string): string => text.replace(/\$(\w+)/g, (_, name: string) => env[name] ?? '');
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? expand(m[2] ?? m[3]!.replaceAll("'", '')));
}
