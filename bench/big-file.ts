/**
 * The large SQLite file the lifecycle benchmarks share (issue 15), built once
 * and cached in the temp folder, keyed by its size, this builder's version
 * and the SQLite schema version, so later runs (and other benchmarks) reuse it.
 *
 * What it holds, by share of events: 1 % new sessions (scoped to one of 500
 * users), 0.2 % turns of the first session (a long one: ~2,000 turns at a
 * million events), 9.8 % turns in the 100 newest sessions, 60 % keyed memory writes over
 * 20,000 keys (so items have many versions), 20 % skill versions over 2,000
 * slugs, 3 % memory deletes, 5 % unkeyed scratch notes; the last 1 % are
 * memory writes through the SQLite provider with the offline embedder, so the
 * file has memory vectors and an embedding cache. A snapshot is stored every
 * 10,000 events, in content-addressed chunks (format 5, with two-level heads).
 *
 * How it is built fast and in bounded memory: an in-memory provider makes the
 * events (same core, same payloads) over a log that stores them as raw rows
 * in transactions of 10,000 and keeps none in memory; it saves a bound
 * snapshot every 10,000 events through the SQLite log. The first open of
 * the file then folds every event into the tables as a bulk load.
 */
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { AppendInput, Log, LogEvent, ReadQuery, StoredSnapshot } from '@agentstate/core';
import { createInMemoryProvider, formatInstant, ManualClock, seededEntropy, STATE_STREAM } from '@agentstate/core';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { eventChecksum, openSqlite, openSqliteLog, DERIVED_VERSION } from '@agentstate/sqlite';
import { seededRandom } from './turn-text.js';

/** Bump when what the builder writes changes: a cached file of another version is not reused. */
const BUILDER_VERSION = 6;

/** A stored snapshot every this many events. */
export const SNAPSHOT_EVERY = 10_000;

/** The first event's instant; each event is one second after the one before. */
export const FIRST_TIME = Date.UTC(2026, 0, 1);

/** The number of users (namespaces `user:u<n>`) records are scoped to. */
export const USERS = 500;

/** What {@link bigFile} returns. */
export interface BigFile {
  path: string;
  events: number;
  /** Seconds the build took, when this call built the file; undefined when it reused a cached one. */
  buildS: number | undefined;
}

const WORDS = (
  'deploy staging rollback database cache user prefers dark mode office review tests latency alert incident cluster memory ' +
  'invoice customer refund quota token model prompt agent tool retry schema index query vacuum checkpoint backup lisbon friday'
).split(' ');

/** A seeded word generator: the same file for the same size. */
function words(seed: number) {
  const random = seededRandom(seed);
  const sentence = (n = 12) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
  return { random, sentence };
}

/**
 * A log that stores appended events as raw rows of the SQLite file, committed
 * every 10,000 events, and keeps none in memory. Reads and snapshots go to
 * the file's own log (after committing what is pending), so a snapshot is
 * bound to the events exactly as the file returns them.
 */
function rowLog(path: string, clock: ManualClock): Log & { flush(): void; close(): Promise<void> } {
  const file = openSqliteLog(path, { synchronous: 'off' });
  const db = new Database(path);
  db.pragma('synchronous = OFF');
  const insert = db.prepare('INSERT INTO events (stream, seq, type, time, schema_version, payload, checksum, validated) VALUES (?, ?, ?, ?, ?, ?, ?, 1)');
  const heads = new Map<string, number>();
  let pending: LogEvent[] = [];
  const flush = db.transaction(() => {
    for (const e of pending) {
      const payload = JSON.stringify(e.payload);
      insert.run(e.stream, e.seq, e.type, e.time, e.schemaVersion, payload, eventChecksum(e.type, e.schemaVersion, payload));
    }
    pending = [];
  });
  return {
    identity: () => file.identity(),
    async append<P>(input: AppendInput<P>): Promise<LogEvent<P>> {
      const seq = (heads.get(input.stream) ?? 0) + 1;
      heads.set(input.stream, seq);
      const event = {
        stream: input.stream,
        seq,
        type: input.type,
        time: input.time ?? formatInstant(clock.now()),
        schemaVersion: input.schemaVersion ?? 1,
        payload: JSON.parse(JSON.stringify(input.payload)) as P,
      };
      pending.push(event);
      if (pending.length >= SNAPSHOT_EVERY) flush();
      return event;
    },
    async read(query: ReadQuery) {
      flush();
      return file.read(query);
    },
    head: async (stream) => heads.get(stream) ?? 0,
    async saveSnapshot(snapshot: StoredSnapshot) {
      flush();
      await file.saveSnapshot(snapshot);
    },
    async latestSnapshot(stream, options) {
      flush();
      return file.latestSnapshot(stream, options);
    },
    flush: () => flush(),
    async close() {
      flush();
      db.close();
      await file.close();
    },
  };
}

async function build(path: string, events: number): Promise<void> {
  const { random, sentence } = words(42);
  const clock = new ManualClock(FIRST_TIME);
  await (await openSqlite(path)).close();
  const log = rowLog(path, clock);
  const source = createInMemoryProvider({ log, clock, entropy: seededEntropy(1), instanceId: 'bench', snapshotEvery: SNAPSHOT_EVERY });
  const sessions: string[] = [];
  const scratch: string[] = [];
  const keyed = new Map<number, string>();
  const viaEmbedder = Math.max(1, Math.floor(events / 100));
  let made = 0;
  while (made < events - viaEmbedder) {
    clock.advance(1_000);
    const r = random();
    const user = `user:u${Math.floor(random() * USERS)}`;
    if (sessions.length === 0 || r < 0.01) sessions.push((await source.sessions.create({ title: sentence(3), scope: [user] })).id);
    else if (r < 0.012) await source.sessions.appendTurn({ sessionId: sessions[0]!, role: 'user', content: sentence() });
    else if (r < 0.11) {
      const sessionId = sessions[sessions.length - 1 - Math.floor(random() * Math.min(100, sessions.length))]!;
      await source.sessions.appendTurn({ sessionId, role: r < 0.06 ? 'user' : 'assistant', content: sentence() });
    } else if (r < 0.71) {
      const key = Math.floor(random() * 20_000);
      keyed.set(key, (await source.memory.write({ key: `k${key}`, content: sentence(), scope: [`user:u${key % USERS}`] })).id);
    } else if (r < 0.91) await source.skills.upsert({ slug: `skill-${Math.floor(random() * 2_000)}`, body: sentence(20) });
    else if (r < 0.94) {
      const key = Math.floor(random() * 20_000);
      const id = keyed.get(key);
      keyed.delete(key);
      if (id) await source.memory.delete(id);
      else scratch.push((await source.memory.write({ content: sentence(), kind: 'scratch', scope: [user] })).id);
    } else scratch.push((await source.memory.write({ content: sentence(), kind: 'scratch', scope: [user] })).id);
    made = await log.head(STATE_STREAM);
  }
  await source.close();
  await log.close();
  // The first open folds every event into the tables; the rest is written through it with the embedder.
  const p = await openSqlite(path, { clock, entropy: seededEntropy(2), embedder: createStaticEmbedder(), snapshotEvery: SNAPSHOT_EVERY, synchronous: 'off' });
  while (made < events) {
    clock.advance(1_000);
    const user = `user:u${Math.floor(random() * USERS)}`;
    await p.memory.write({ content: sentence(), kind: 'fact', scope: [user] });
    made = await p.log.head(STATE_STREAM);
  }
  await p.close();
  const db = new Database(path);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** The schema of the files this library writes, by its derived version. */
const SCHEMA = `d${DERIVED_VERSION}`;

const cachedPath = (events: number, version: number, schema: string | number = SCHEMA) => join(tmpdir(), `agentstate-big-${events}-b${version}-s${schema}.db`);

/** The schema versions a cached file may have been written at, newest first: 11 is the first the builder wrote. */
const SCHEMA_VERSIONS = [SCHEMA, 13, 12, 11];

/**
 * The cached file of `events` events (built now if there is none), as
 * described above. Benchmarks that write to it (purge) work on a copy. When
 * only a file of an older schema with the same events and builder version
 * is cached, a copy of it is brought up to date (opened once through the provider);
 * the old file stays.
 */
export async function bigFile(events: number): Promise<BigFile> {
  const path = cachedPath(events, BUILDER_VERSION);
  if (existsSync(path)) return { path, events, buildS: undefined };
  const building = `${path}.building`;
  const converting = `${path}.converting`;
  const start = performance.now();
  const older = SCHEMA_VERSIONS.map((schema) => cachedPath(events, BUILDER_VERSION, schema)).find(existsSync);
  if (older) {
    // A migration left half-way resumes on its copy.
    if (!existsSync(converting)) {
      copyFileSync(older, `${converting}.copy`);
      renameSync(`${converting}.copy`, converting);
    }
    await (await openSqlite(converting)).close();
    for (const suffix of ['-wal', '-shm']) rmSync(`${converting}${suffix}`, { force: true });
    renameSync(converting, path);
    return { path, events, buildS: (performance.now() - start) / 1000 };
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  await build(building, events);
  for (const suffix of ['-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  renameSync(building, path);
  return { path, events, buildS: (performance.now() - start) / 1000 };
}

// Run alone (`tsx big-file.ts [events]`) it builds the file and prints where it is.
if (import.meta.url === `file://${process.argv[1]}`) {
  const file = await bigFile(Number(process.argv[2] ?? process.env.BENCH_LIFECYCLE_EVENTS ?? 1_000_000));
  console.log(`${file.path}: ${file.events} events${file.buildS === undefined ? ' (cached)' : `, built or migrated in ${file.buildS.toFixed(1)} s`}`);
}
