/**
 * The read paths of the data model use indexes (the regression guard of the
 * figures in bench/README.md, never timings): each call runs against a real file
 * while every statement it prepares is recorded, then `EXPLAIN QUERY PLAN`
 * of each, with the same parameters, must name the expected index and must
 * not scan the memory, turns, sessions or metadata tables.
 */
import Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '@agentstate/core';
import { STATE_STREAM, SYNC_STREAM, sync } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import type { SqliteProvider } from '../src/index.js';
import { tempDir } from './helpers.js';

type Run = (...args: unknown[]) => unknown;
const METHODS = ['all', 'get', 'iterate', 'run'] as const;
const statementPrototype = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<(typeof METHODS)[number], Run>;

/** Every statement `fn` runs, with its parameters and its query plan. */
async function plansOf(fn: () => Promise<unknown>): Promise<{ sql: string; args: unknown[]; plan: string[] }[]> {
  const seen: { statement: Statement; args: unknown[] }[] = [];
  const originals = METHODS.map((method) => [method, statementPrototype[method]] as const);
  for (const [method, original] of originals) {
    statementPrototype[method] = function (this: Statement, ...args: unknown[]) {
      seen.push({ statement: this, args });
      return original.apply(this, args);
    };
  }
  try {
    await fn();
  } finally {
    for (const [method, original] of originals) statementPrototype[method] = original;
  }
  return seen
    .filter(({ statement }) => /^\s*(SELECT|WITH|UPDATE|DELETE)/i.test(statement.source))
    .map(({ statement, args }) => ({
      sql: statement.source,
      args,
      plan: (statement.database.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all(...args) as { detail: string }[]).map((row) => row.detail),
    }));
}

/** A scan of a table of records (or of its alias), whole or along an index: what no read path may do. */
const RECORD_SCAN = /^SCAN (memory|memory_meta|turns|sessions|skills|[mrst])( |$)/;

const t = tempDir('agentstate-plans-');
let p: SqliteProvider;
let session: Session;
let itemId: string;

beforeAll(async () => {
  p = await openSqlite(t.file());
  session = await p.sessions.create({ title: 'long', scope: ['org:a', 'team:b'] });
  for (let i = 0; i < 30; i += 1) await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${i} about deploys` });
  await p.sessions.create({ title: 'other', scope: ['org:a', 'team:c', 'user:d'] });
  for (let i = 0; i < 20; i += 1) {
    const item = await p.memory.write({
      content: `note ${i} about deploys`,
      scope: ['org:a', `team:${i % 3}`],
      key: `k${i}`,
      metadata: { tag: i % 2 === 0 ? 'x' : 'y', n: i, nested: { app: `app-${i % 4}` } },
    });
    itemId = item.id;
  }
  await p.skills.upsert({ slug: 'deploy', body: 'how to deploy', scope: ['org:a'] });
  for (let i = 0; i < 20; i += 1) {
    const threadId = `thread-${i % 4}`;
    const checkpointId = String(i).padStart(3, '0');
    await p.checkpoints.put({ threadId, namespace: i % 2 ? 'sub' : '', checkpointId, checkpoint: { i }, metadata: { step: i } });
    await p.checkpoints.putWrites({ threadId, checkpointId, taskId: 'k', writes: [{ idx: 0, channel: 'c', value: i }] });
  }
});

afterAll(async () => {
  await p.close();
  t.cleanup();
});

const cases: { name: string; call: () => Promise<unknown>; uses: RegExp[] }[] = [
  { name: 'recall where equality', call: () => p.memory.recall({ where: { tag: 'x' } }), uses: [/memory_meta_by_value \(path=\? AND type=\? AND value=\?\)/] },
  {
    name: 'recall where range (both bounds in one index range)',
    call: () => p.memory.recall({ where: { n: { $gte: 3, $lt: 9 } } }),
    uses: [/memory_meta_by_value \(path=\? AND type=\? AND value>\? AND value<\?\)/],
  },
  {
    name: 'recall where $in on a nested path',
    call: () => p.memory.recall({ where: { 'nested.app': { $in: ['app-1', 'app-2'] } } }),
    uses: [/memory_meta_by_value \(path=\? AND type=\? AND value=\?\)/],
  },
  {
    name: 'recall lexical with a where filter, in a scope and its descendants',
    call: () => p.memory.recall({ query: 'deploys', mode: 'lexical', scope: ['org:a'], includeDescendants: true, where: { tag: 'x' } }),
    uses: [/memory_fts VIRTUAL TABLE/, /memory_meta_by_value \(path=\? AND type=\? AND value=\?\)/],
  },
  {
    name: 'namespaces under a prefix, cut to a depth (a skip scan per table)',
    call: () => p.namespaces({ prefix: ['org:a'], maxDepth: 2 }),
    uses: [
      /sessions_live_by_scope \(scope_key>\? AND scope_key<\?\)/,
      /skills_live_by_scope \(scope_key>\? AND scope_key<\?\)/,
      /memory_live_by_scope \(scope_key>\? AND scope_key<\?\)/,
    ],
  },
  {
    name: 'sessions.turns last 20 (a tail read)',
    call: () => p.sessions.turns(session.id, { last: 20 }),
    uses: [/SEARCH turns USING INDEX \w+ \(session_id=\?\)/],
  },
  {
    name: 'sessions.list of a scope and its descendants',
    call: () => p.sessions.list({ scope: ['org:a'], includeDescendants: true, limit: 20 }),
    uses: [/sessions_live_by_scope \(scope_key=\?/, /sessions_live_by_scope \(scope_key>\? AND scope_key<\?\)/],
  },
  {
    name: 'sessions.search lexical in a scope and its descendants',
    call: () => p.sessions.search({ query: 'deploys', mode: 'lexical', scope: ['org:a'], includeDescendants: true }),
    uses: [/turns_fts VIRTUAL TABLE/, /\(session_id=\? AND seq<\?\)/],
  },
  {
    name: 'checkpoints.get, the newest of a thread and namespace, with its writes',
    call: () => p.checkpoints.get({ threadId: 'thread-1', namespace: 'sub' }),
    uses: [
      /SEARCH c USING PRIMARY KEY \(thread_id=\? AND namespace=\?\)/,
      // The value is read from the event the row points at, by the log's key.
      /SEARCH e USING INDEX sqlite_autoindex_events_1 \(stream=\? AND seq=\?\)/,
      /checkpoint_writes_by_key \(thread_id=\? AND namespace=\? AND checkpoint_id=\?\)/,
    ],
  },
  {
    name: 'checkpoints.list across threads before an id',
    call: () => p.checkpoints.list({ before: '010', limit: 3 }),
    uses: [/SEARCH c USING INDEX checkpoints_newest/],
  },
  {
    name: 'checkpoints.list of one thread',
    call: () => p.checkpoints.list({ threadId: 'thread-2', limit: 2 }),
    uses: [/SEARCH c USING PRIMARY KEY \(thread_id=\?\)/],
  },
  {
    name: 'memory.update',
    call: () => p.memory.update(itemId, { content: 'changed', metadata: { tag: 'z' } }),
    uses: [/memory_meta USING PRIMARY KEY \(item_n=\?\)/],
  },
];

describe('query plans of a purge', () => {
  it('finds the cached embeddings of the erased text by their key and scans neither the cache nor the log', async () => {
    const item = await p.memory.write({ content: 'a note to purge about deploys' });
    const plans = await plansOf(() => p.purge({ id: item.id, reason: 'test' }));
    const lines = plans.flatMap(({ sql, plan }) => plan.map((line) => `${line}    ← ${sql.replace(/\s+/g, ' ').slice(0, 120)}`));
    expect(lines.filter((line) => /^SCAN (embedding_cache|events|record_events)( |$)/.test(line) || RECORD_SCAN.test(line))).toEqual([]);
    expect(
      lines.some((line) => /SEARCH embedding_cache USING COVERING INDEX \w+ \(embedder_id=\? AND content_hash=\?\)/.test(line)),
      lines.join('\n'),
    ).toBe(true);
  });
});

describe('query plans of the read paths', () => {
  for (const c of cases) {
    it(`${c.name}: uses its index and scans no record table`, async () => {
      const plans = await plansOf(c.call);
      const lines = plans.flatMap(({ sql, plan }) => plan.map((line) => `${line}    ← ${sql.replace(/\s+/g, ' ').slice(0, 120)}`));
      expect(lines.filter((line) => RECORD_SCAN.test(line))).toEqual([]);
      for (const index of c.uses)
        expect(
          lines.some((line) => index.test(line)),
          `${index} in\n${lines.join('\n')}`,
        ).toBe(true);
    });
  }
});

describe('query plans of the sync reads', () => {
  it('read the origin index of a store that received, and no event row when the peer lacks nothing of it', async () => {
    const source = await openSqlite(t.file('source.db'));
    const receiver = await openSqlite(t.file('receiver.db'));
    await source.memory.write({ content: 'a fact to sync' });
    await sync(receiver, p);
    await sync(receiver, source);
    // Asked with its peers' vector, which names everything it received and not the receiver, which wrote nothing.
    const peers = { ...(await p.vector()), ...(await source.vector()) };
    let lacked: unknown[] = [];
    const plans = await plansOf(async () => {
      await receiver.vector();
      lacked = await receiver.changes(peers);
    });
    // The sync notes since the last read are a range of the `sync` stream, and the events received since the last count
    // one of the log from its head: both empty.
    const head = await receiver.log.head(STATE_STREAM);
    const lines = plans
      .filter(({ sql, args }) => args[0] !== SYNC_STREAM && !(sql.startsWith('SELECT count(*)') && args[0] === head))
      .flatMap(({ sql, plan }) => plan.map((line) => `${line}    ← ${sql.replace(/\s+/g, ' ').slice(0, 120)}`));
    expect(lacked).toEqual([]);
    // Neither a scan of the log or of its origin index, nor a range of it from its first event, nor a read of its payloads.
    expect(lines.filter((line) => /^SCAN events|USING INDEX sqlite_autoindex_events_1 \(stream=\?|payload/.test(line))).toEqual([]);
    expect(lines.some((line) => /SEARCH \w+ USING COVERING INDEX events_origin \(origin=\?\)/.test(line))).toBe(true);
    await Promise.all([source.close(), receiver.close()]);
  });
});
