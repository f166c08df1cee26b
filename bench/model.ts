/**
 * Data-model benchmark (issue #11): the read paths of the model at 100,000
 * memory items and 100,000 turns, each next to raw better-sqlite3 running
 * the equivalent indexed query on the same file in the same run:
 *  - memory recall filtered by metadata (`where`: equality, range, `$in`);
 *  - `provider.namespaces` under a prefix, cut to a depth;
 *  - `sessions.turns(id, { last: 20 })` on a long session (a tail read);
 *  - `sessions.list` of a scope and its descendants;
 *  - `sessions.search`, lexical;
 *  - `memory.update` (a durable write: one event, the row, its full-text
 *    and metadata rows).
 * The file is built fast: core's in-memory provider makes the events, they
 * are appended to a bare SQLite log in batches, and the first open projects
 * them (the bulk load of a rebuild).
 * Run: `npm run build` at the root, then `npm run model -w @agentstate/bench`.
 * Sizes: BENCH_MODEL_ITEMS, BENCH_MODEL_TURNS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createInMemoryProvider, ManualClock, seededEntropy } from '@agentstate/core';
import type { JsonObject } from '@agentstate/core';
import { eventChecksum, openSqlite, openSqliteLog } from '@agentstate/sqlite';
import { fmt, percentile, printTable, timeMs } from './table.js';
import { seededRandom } from './turn-text.js';

const ITEMS = Number(process.env.BENCH_MODEL_ITEMS ?? 100_000);
const TURNS = Number(process.env.BENCH_MODEL_TURNS ?? 100_000);
/** Turns of the one long session the tail read is timed on. */
const LONG_SESSION = Math.min(20_000, Math.floor(TURNS / 2));
/** Turns per other session. */
const SESSION_TURNS = 50;
const CALLS = 300;
const BATCH = 5_000;

const dir = mkdtempSync(join(tmpdir(), 'agentstate-bench-model-'));
const path = join(dir, 'model.db');

const WORDS = (
  'deploy staging production rollback database migration cache redis postgres user prefers dark mode lisbon office friday ' +
  'review tests coverage latency budget alert pager incident kubernetes cluster node memory leak profile flame graph ' +
  'invoice customer billing refund quota limit token model prompt context window agent tool call retry backoff timeout ' +
  'schema index query plan vacuum checkpoint wal fsync durable replica failover region zone backup restore snapshot'
).split(' ');
const TAGS = ['billing', 'infra', 'product', 'support', 'security', 'sales', 'legal', 'research', 'ops', 'design'];
const random = seededRandom(11);
const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
const sentence = (n = 12) => Array.from({ length: n }, pick).join(' ');

/** Nested scopes: 4 organisations, 5 teams each, 10 users each (depth 3), records at every depth. */
function scopeOf(i: number): string[] {
  const org = `org:o${i % 4}`;
  const team = `team:t${Math.floor(i / 4) % 5}`;
  const user = `user:u${Math.floor(i / 20) % 10}`;
  const depth = i % 10 === 0 ? 1 : i % 10 < 3 ? 2 : 3;
  return [org, team, user].slice(0, depth);
}

function metadataOf(i: number): JsonObject {
  return { tag: TAGS[i % TAGS.length]!, priority: i % 1000, source: { app: `app-${i % 7}`, pinned: i % 13 === 0 } };
}

// ---------------------------------------------------------------- building the file

/** Makes the events with the in-memory provider and appends them to a new SQLite log; the first open projects them. */
async function build(): Promise<{ longSession: string; itemIds: string[]; events: number; ms: number }> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const source = createInMemoryProvider({ clock, entropy: seededEntropy(5) });
  const itemIds: string[] = [];
  for (let i = 0; i < ITEMS; i += 1) {
    clock.advance(1);
    const key = i % 4 === 0 ? `k${i}` : undefined;
    const item = await source.memory.write({
      content: sentence(8 + (i % 8)),
      kind: i % 3 === 0 ? 'preference' : 'fact',
      scope: scopeOf(i),
      metadata: metadataOf(i),
      ...(key ? { key } : {}),
    });
    itemIds.push(item.id);
  }
  const long = await source.sessions.create({ title: 'the long session', scope: ['org:o1', 'team:t2'] });
  let session = long.id;
  for (let i = 0; i < TURNS; i += 1) {
    clock.advance(1);
    const inLong = i < LONG_SESSION;
    if (!inLong && (i - LONG_SESSION) % SESSION_TURNS === 0) {
      session = (await source.sessions.create({ title: sentence(3), scope: scopeOf((i - LONG_SESSION) / SESSION_TURNS) })).id;
    }
    await source.sessions.appendTurn({ sessionId: inLong ? long.id : session, role: i % 2 === 0 ? 'user' : 'assistant', content: sentence() });
  }
  const events = await source.log.read({ stream: 'state' });
  const ms = await timeMs(async () => {
    const log = openSqliteLog(path);
    try {
      for (let i = 0; i < events.length; i += BATCH) {
        await log.appendMany(
          events.slice(i, i + BATCH).map(({ stream, type, payload, time, schemaVersion }) => ({ stream, type, payload, time, schemaVersion })),
        );
      }
    } finally {
      await log.close();
    }
    await (await openSqlite(path)).close();
  });
  return { longSession: long.id, itemIds, events: events.length, ms };
}

// ---------------------------------------------------------------- timing

interface Figure {
  p50: number;
  p95: number;
  perSecond: number;
  rows: number;
}

/** Times `calls` calls of `fn` after a warm-up: per-call latency and calls per second. */
async function time(fn: (i: number) => Promise<unknown> | unknown, calls = CALLS): Promise<Figure> {
  for (let i = 0; i < 20; i += 1) await fn(i);
  const samples: number[] = [];
  let rows = 0;
  const start = performance.now();
  for (let i = 0; i < calls; i += 1) {
    const t = performance.now();
    const out = await fn(i);
    samples.push(performance.now() - t);
    if (Array.isArray(out)) rows += out.length;
  }
  const total = performance.now() - start;
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), perSecond: (calls / total) * 1000, rows: rows / calls };
}

const ms = (n: number) => `${fmt(n, n < 1 ? 3 : 2)} ms`;

async function main(): Promise<void> {
  const built = await build();
  const p = await openSqlite(path);
  const raw = new Database(path, { readonly: true });
  const rows: string[][] = [];
  const row = (label: string, ours: Figure, base: Figure | undefined) =>
    rows.push([
      label,
      fmt(ours.rows, 1),
      ms(ours.p50),
      ms(ours.p95),
      `${fmt(ours.perSecond)} /s`,
      base ? ms(base.p50) : '—',
      base ? `${fmt(base.perSecond)} /s` : '—',
      base ? `${fmt(ours.perSecond / base.perSecond, 2)}×` : '—',
    ]);

  // Metadata filters: the same (path, type, value) index look-up raw, newest first, limit 20.
  const newestWithMeta = (condition: string) =>
    raw.prepare(
      `SELECT m.* FROM memory m WHERE m.deleted = 0 AND m.n IN (SELECT item_n FROM memory_meta WHERE ${condition}) ORDER BY m.created_at DESC, m.id DESC LIMIT 20`,
    );
  const eq = newestWithMeta(`path = '["tag"]' AND type = 'string' AND value = ?`);
  row(
    'recall, where tag = x (10% of items)',
    await time((i) => p.memory.recall({ where: { tag: TAGS[i % TAGS.length]! } })),
    await time((i) => eq.all(TAGS[i % TAGS.length])),
  );
  const range = newestWithMeta(`path = '["priority"]' AND type = 'number' AND value >= ? AND value < ?`);
  row(
    'recall, where 100 ≤ priority < 110 (1%)',
    await time((i) => p.memory.recall({ where: { priority: { $gte: (i % 90) * 10, $lt: (i % 90) * 10 + 10 } } })),
    await time((i) => range.all((i % 90) * 10, (i % 90) * 10 + 10)),
  );
  const nested = newestWithMeta(`path = '["source","app"]' AND type = 'string' AND value IN (?, ?)`);
  row(
    'recall, where source.app $in [a, b] (29%)',
    await time((i) => p.memory.recall({ where: { 'source.app': { $in: [`app-${i % 7}`, `app-${(i + 1) % 7}`] } } })),
    await time((i) => nested.all(`app-${i % 7}`, `app-${(i + 1) % 7}`)),
  );
  const rare = newestWithMeta(`path = '["priority"]' AND type = 'number' AND value = ?`);
  row(
    'recall, where priority = n, one scope + descendants',
    await time((i) => p.memory.recall({ scope: ['org:o1'], includeDescendants: true, where: { priority: (i % 250) * 4 + 1 } })),
    await time((i) => rare.all((i % 250) * 4 + 1)),
  );
  const lexical = raw.prepare(
    `SELECT m.* FROM memory_fts JOIN memory m ON m.n = memory_fts.rowid WHERE memory_fts MATCH ? AND m.deleted = 0
       AND m.n IN (SELECT item_n FROM memory_meta WHERE path = '["tag"]' AND type = 'string' AND value = ?) ORDER BY memory_fts.rowid DESC LIMIT 20`,
  );
  row(
    'recall lexical "word", where tag = x',
    await time((i) => p.memory.recall({ query: WORDS[i % WORDS.length]!, mode: 'lexical', where: { tag: TAGS[i % TAGS.length]! } })),
    await time((i) => lexical.all(`"${WORDS[i % WORDS.length]}"*`, TAGS[i % TAGS.length])),
  );

  // Namespaces: raw is the query before the skip scan (one OR range per table, which walks every index entry).
  const under = `WHERE deleted = 0 AND (scope_key = ? OR (scope_key >= ? AND scope_key < ?))`;
  const distinct = raw.prepare(
    `SELECT scope_key FROM sessions ${under} UNION SELECT scope_key FROM skills ${under} UNION SELECT scope_key FROM memory ${under}`,
  );
  const org = (i: number) => `org:o${i % 4}`;
  const keyRange = (label: string) => [JSON.stringify([label]), `["${label}",`, `["${label}"-`];
  row(
    'namespaces, prefix [org], maxDepth 2',
    await time((i) => p.namespaces({ prefix: [org(i)], maxDepth: 2 }), 50),
    await time((i) => distinct.all(...keyRange(org(i)), ...keyRange(org(i)), ...keyRange(org(i))), 50),
  );
  row('namespaces, all, maxDepth 1', await time(() => p.namespaces({ maxDepth: 1 }), 50), undefined);

  // Transcripts.
  const tail = raw.prepare('SELECT * FROM turns WHERE session_id = ? AND deleted = 0 ORDER BY seq DESC LIMIT 20');
  row(
    `sessions.turns(id, { last: 20 }), ${fmt(LONG_SESSION)}-turn session`,
    await time(() => p.sessions.turns(built.longSession, { last: 20 })),
    await time(() => tail.all(built.longSession)),
  );
  const listed = raw.prepare(
    'SELECT * FROM sessions WHERE deleted = 0 AND (scope_key = ? OR (scope_key >= ? AND scope_key < ?)) ORDER BY created_at, id LIMIT 20',
  );
  const team = (i: number) => [org(i), `team:t${i % 5}`];
  row(
    'sessions.list, scope [org, team] + descendants',
    await time((i) => p.sessions.list({ scope: team(i), includeDescendants: true, limit: 20 })),
    await time((i) => {
      const key = JSON.stringify(team(i));
      return listed.all(key, `${key.slice(0, -1)},`, `${key.slice(0, -1)}-`);
    }),
  );
  const search = raw.prepare(
    `SELECT t.* FROM turns_fts JOIN turns t ON t.n = turns_fts.rowid WHERE turns_fts MATCH ? AND t.deleted = 0 ORDER BY t.created_at DESC, t.id DESC LIMIT 20`,
  );
  row(
    'sessions.search lexical, two words',
    await time((i) => p.sessions.search({ query: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`, mode: 'lexical' }), 100),
    await time((i) => search.all(`"${WORDS[i % WORDS.length]}"* "${WORDS[(i * 7) % WORDS.length]}"*`), 100),
  );
  row(
    'sessions.search lexical, one scope + descendants',
    await time((i) => p.sessions.search({ query: WORDS[i % WORDS.length]!, mode: 'lexical', scope: team(i), includeDescendants: true }), 100),
    undefined,
  );
  raw.close();

  // memory.update, durable (synchronous=full), one awaited call each, vs raw doing the same rows in one transaction each.
  const updates = 1_000;
  const ours = await time(
    (i) => p.memory.update(built.itemIds[(i * 97) % built.itemIds.length]!, { content: sentence(), metadata: metadataOf(i + 1) }),
    updates,
  );
  await p.close();
  row('memory.update (content + metadata), durable', ours, await rawUpdates(built.itemIds, updates));

  printTable(
    `The data model at ${fmt(ITEMS)} memory items and ${fmt(TURNS)} turns (${fmt(built.events)} events; load: ${fmt(built.ms / 1000, 1)} s). ` +
      'Raw: better-sqlite3 running the equivalent indexed SQL on the same file.',
    ['call', 'rows', 'p50', 'p95', 'agentstate', 'raw p50', 'raw', 'ratio'],
    rows,
  );
}

/** Raw better-sqlite3: an event row, the memory row, its full-text row and metadata rows, one transaction each. */
async function rawUpdates(itemIds: readonly string[], n: number): Promise<Figure> {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = full');
  const head = () => (db.prepare(`SELECT max(seq) AS seq FROM events WHERE stream = 'state'`).get() as { seq: number }).seq;
  const insertEvent = db.prepare('INSERT INTO events (stream, seq, type, time, schema_version, payload, checksum, validated) VALUES (?, ?, ?, ?, 2, ?, ?, 1)');
  const byId = db.prepare('SELECT n FROM memory WHERE id = ?').pluck();
  const update = db.prepare('UPDATE memory SET content = ?, metadata = ?, updated_at = ?, sync_version = sync_version + 1 WHERE n = ?');
  const deleteFts = db.prepare('DELETE FROM memory_fts WHERE rowid = ?');
  const insertFts = db.prepare('INSERT INTO memory_fts (rowid, text) VALUES (?, ?)');
  const deleteMeta = db.prepare('DELETE FROM memory_meta WHERE item_n = ?');
  const insertMeta = db.prepare('INSERT INTO memory_meta (item_n, path, type, value) VALUES (?, ?, ?, ?)');
  let seq = head();
  const figure = await time((i) => {
    const content = sentence();
    const metadata = metadataOf(i + 1);
    const now = new Date().toISOString();
    const id = itemIds[(i * 89) % itemIds.length]!;
    db.exec('BEGIN IMMEDIATE');
    const n = byId.get(id) as number;
    seq += 1;
    const payload = JSON.stringify({ item: { id, content, metadata, updatedAt: now } });
    insertEvent.run('state', seq, 'memory.updated', now, payload, eventChecksum('memory.updated', 2, payload));
    update.run(content, JSON.stringify(metadata), now, n);
    deleteFts.run(n);
    insertFts.run(n, content);
    deleteMeta.run(n);
    insertMeta.run(n, '["tag"]', 'string', metadata.tag as string);
    insertMeta.run(n, '["priority"]', 'number', metadata.priority as number);
    insertMeta.run(n, '["source"]', 'object', null);
    insertMeta.run(n, '["source","app"]', 'string', (metadata.source as JsonObject).app as string);
    insertMeta.run(n, '["source","pinned"]', 'boolean', (metadata.source as JsonObject).pinned ? 1 : 0);
    db.exec('COMMIT');
    return Promise.resolve();
  }, n);
  db.close();
  return figure;
}

try {
  await main();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
