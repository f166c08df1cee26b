/**
 * A first sync into an empty file (docs/contract.md §12, "A first sync into an empty store"): the file takes every
 * event of the other store's file at once, with the rows its fold made, and ends as a sync batch by batch leaves
 * it, row for row; a damaged or undecodable event is refused and nothing is written; where a seed cannot go, the
 * sync goes batch by batch.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptionError, type EventSourcedProvider, STATE_STREAM, SyncConflictError, type SyncPeer, sync } from '@agentstate/core';
import { type EventRow, rowChecksum } from '@agentstate/core/backend';
import { openSqlite, type SqliteProvider } from '../src/index.js';
import { bagOfWordsEmbedder, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

/** `p` as a peer that is not a provider of this process: a sync with it goes batch by batch. */
const batchByBatch = (p: EventSourcedProvider): SyncPeer => ({
  vector: (options) => p.vector(options),
  changes: (vector, options) => p.changes(vector, options),
  receive: (events, options) => p.receive(events, options),
  replicaId: () => p.replicaId(),
  retention: p.retention,
});

/** Sessions, turns, keyed memory, skills with outcomes, a purge and a retention policy, written on `p` in `scope`. */
async function work(p: SqliteProvider, scope: string): Promise<string> {
  const session = await p.sessions.create({ title: `${scope} chat`, scope: [scope] });
  for (const content of ['deploy on friday', 'roll back the cache', 'page the on-call'])
    await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content });
  await p.sessions.removeLastTurn(session.id);
  const fact = await p.memory.write({ content: `${scope} office in lisbon`, key: 'office', scope: [scope], operationId: `${scope}-office` });
  await p.memory.update(fact.id, { content: `${scope} office in porto` });
  const secret = await p.memory.write({ content: `${scope} token sk-12345`, scope: [scope] });
  await p.purge({ id: secret.id, reason: 'leaked' });
  await p.skills.upsert({ slug: 'deploy', body: `${scope} deploy steps`, scope: [scope] });
  await p.skills.recordOutcome('deploy', { success: true, scope: [scope] });
  await p.retention.set({ record: 'session', scope: [scope], maxAge: '30d' });
  return fact.id;
}

/** Rows of every table of file `a` that file `b` lacks, by table, but the full-text indexes' own segments and each file's identity. */
function rowsApart(a: string, b: string): Record<string, number> {
  const db = new Database(a, { readonly: true });
  db.exec(`ATTACH '${b}' AS b`);
  const tables = db
    .prepare("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts_%'")
    .pluck()
    .all() as string[];
  const apart: Record<string, number> = {};
  for (const table of tables) {
    // A received event's local time is when it was received, which its checksum covers.
    const columns =
      table === 'events'
        ? 'stream, seq, type, schema_version, payload, validated, actor, trace_id, span_id, causation_id, origin_instance_id, principal, origin, origin_seq, origin_time'
        : table.endsWith('_fts')
          ? 'rowid, *'
          : '*';
    const where = table === 'events' ? " WHERE stream = 'state'" : table === 'store_meta' ? " WHERE key <> 'log_identity'" : '';
    const count = (x: string, y: string) =>
      db
        .prepare(`SELECT count(*) FROM (SELECT ${columns} FROM ${x}.${table}${where} EXCEPT SELECT ${columns} FROM ${y}.${table}${where})`)
        .pluck()
        .get() as number;
    const n = count('main', 'b') + count('b', 'main');
    if (n > 0) apart[table] = n;
  }
  db.close();
  return apart;
}

describe('a first sync into an empty SQLite file', () => {
  it('takes every event and row of the other file at once, and leaves the file row for row as a sync batch by batch does', async () => {
    const source = await openSqlite(tmp.file('source.db'));
    const other = await openSqlite(tmp.file('other.db'));
    await work(source, 'laptop');
    await work(other, 'server');
    await sync(source, other);
    // Versions written apart, which a fold merges: the source holds the loser as a conflict.
    const shared = await source.memory.write({ content: 'shared fact', key: 'shared' });
    await sync(source, other);
    await other.memory.update(shared.id, { content: 'changed on the server' });
    await source.memory.update(shared.id, { content: 'changed on the laptop' });
    expect((await sync(source, other)).merged).toBe(2);
    const head = await source.log.head(STATE_STREAM);
    // A sync counts the retention policies it brings beside the events.
    const policies = (await source.retention.list()).length;
    await other.close();

    const seeded = await openSqlite(tmp.file('seeded.db'));
    const batched = await openSqlite(tmp.file('batched.db'));
    // One transaction, which folds nothing, so counts no merge; batch by batch the fold merges again.
    expect(await sync(seeded, source)).toEqual({ toA: head + policies, toB: 0, merged: 0, batches: 1 });
    const byBatch = await sync(batched, batchByBatch(source));
    expect(byBatch).toMatchObject({ toA: head + policies, toB: 0 });
    expect(byBatch.merged).toBeGreaterThan(0);
    for (const p of [seeded, batched]) expect(await sync(p, source)).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
    expect((await seeded.verify()).ok).toBe(true);
    expect((await seeded.history(shared.id)).filter((version) => version.conflict)).toHaveLength(1);
    // Pushed the other way, into an empty file, it seeds too.
    const pushed = await openSqlite(tmp.file('pushed.db'));
    expect(await sync(source, pushed)).toEqual({ toA: 0, toB: head + policies, merged: 0, batches: 1 });
    for (const p of [source, seeded, batched, pushed]) await p.close();
    expect(rowsApart(tmp.file('seeded.db'), tmp.file('batched.db'))).toEqual({});
    expect(rowsApart(tmp.file('pushed.db'), tmp.file('batched.db'))).toEqual({});
  });

  it('tells the progress of a long seed as it goes, and lets the event loop run between its pages', async () => {
    const source = await openSqlite(tmp.file('source.db'));
    const session = await source.sessions.create({ title: 'long' });
    for (let i = 0; i < 5; i++)
      await source.sessions.appendTurns(
        session.id,
        Array.from({ length: 1_000 }, (_, n) => ({ role: 'user' as const, content: `turn ${i * 1_000 + n}` })),
      );
    const head = await source.log.head(STATE_STREAM);
    const target = await openSqlite(tmp.file('target.db'));
    const told: number[] = [];
    let turns = 0;
    const ticking = setInterval(() => {
      turns += 1;
    }, 0);
    const summary = await sync(target, source, { onProgress: ({ toA }) => told.push(toA) }).finally(() => clearInterval(ticking));
    expect(summary).toMatchObject({ toA: head, batches: 1 });
    // A page of 2,000 events at a time, each told, then the summary of the one batch.
    expect(told).toEqual([2_000, 4_000, head, head]);
    expect(turns).toBeGreaterThan(0);
    expect((await target.verify()).ok).toBe(true);
    for (const p of [source, target]) await p.close();
  });

  it('seeds from a file of v0.1, whose events carry the old checksums and payloads', async () => {
    writeFileSync(tmp.file('old.db'), gunzipSync(readFileSync(fileURLToPath(new URL('./fixtures/v1/state.db.gz', import.meta.url)))));
    const old = await openSqlite(tmp.file('old.db'));
    const [seeded, batched] = [await openSqlite(tmp.file('seeded.db')), await openSqlite(tmp.file('batched.db'))];
    const head = await old.log.head(STATE_STREAM);
    expect(await sync(seeded, old)).toMatchObject({ toA: head, batches: 1 });
    expect(await sync(batched, batchByBatch(old))).toMatchObject({ toA: head });
    expect((await seeded.verify()).ok).toBe(true);
    for (const p of [old, seeded, batched]) await p.close();
    expect(rowsApart(tmp.file('seeded.db'), tmp.file('batched.db'))).toEqual({});
  });

  /** A source file written and damaged by `damage` (through a handle of its own), and a sync of an empty file from it. */
  async function fromDamaged(damage: (db: Database.Database) => void): Promise<{ error: unknown; target: SqliteProvider }> {
    const source = await openSqlite(tmp.file('source.db'));
    await work(source, 'laptop');
    await source.close();
    const db = new Database(tmp.file('source.db'));
    damage(db);
    db.close();
    const reopened = await openSqlite(tmp.file('source.db'));
    const target = await openSqlite(tmp.file('target.db'));
    const error = await sync(target, reopened).catch((e: unknown) => e);
    await reopened.close();
    return { error, target };
  }

  /** What a refused seed must leave: nothing at all. */
  async function expectEmpty(target: SqliteProvider): Promise<void> {
    expect(await target.log.head(STATE_STREAM)).toBe(0);
    expect(await target.log.head('sync')).toBe(0);
    expect((await target.snapshot()).memory).toEqual([]);
    await target.close();
  }

  it('refuses a source whose event no longer matches its checksum, and writes nothing', async () => {
    const { error, target } = await fromDamaged((db) => db.exec(`UPDATE events SET payload = replace(payload, 'porto', 'faro') WHERE stream = 'state'`));
    expect(error).toBeInstanceOf(CorruptionError);
    await expectEmpty(target);
  });

  it('refuses a source event with a valid checksum that the store never validated and no decoder reads, and writes nothing', async () => {
    const { error, target } = await fromDamaged((db) => {
      const row = db.prepare("SELECT * FROM events WHERE stream = 'state' AND type = 'memory.updated'").get() as EventRow;
      const payload = JSON.stringify({ nonsense: true });
      db.prepare('UPDATE events SET payload = ?, checksum = ?, validated = 0 WHERE stream = ? AND seq = ?').run(
        payload,
        rowChecksum({ ...row, payload }),
        row.stream,
        row.seq,
      );
    });
    expect(error).toBeInstanceOf(CorruptionError);
    expect((error as CorruptionError).message).toMatch(/in the store synced from; nothing was received/);
    await expectEmpty(target);
  });

  it('goes batch by batch where a seed cannot: a batch size asked for, a scope, a file that holds an event, a file with an embedder', async () => {
    const source = await openSqlite(tmp.file('source.db'));
    await work(source, 'laptop');
    await work(source, 'server');
    const head = await source.log.head(STATE_STREAM);
    const policies = (await source.retention.list()).length;
    expect((await sync(await openSqlite(tmp.file('sized.db')), source, { batchSize: 5 })).batches).toBe(Math.ceil(head / 5));
    // A seed would take the other tenant's events too.
    expect((await sync(await openSqlite(tmp.file('scoped.db')), source, { scope: ['laptop'] })).toA).toBeLessThan(head);
    const embedding = await openSqlite(tmp.file('embedding.db'), { embedder: bagOfWordsEmbedder() });
    expect(await sync(embedding, source)).toMatchObject({ toA: head + policies });
    // Batch by batch, the follow-up embeds each memory item received.
    expect((await embedding.memory.recall({ query: 'office in porto', scope: ['laptop'], mode: 'semantic' }))[0]?.content).toBe('laptop office in porto');
    const holding = await openSqlite(tmp.file('holding.db'));
    await holding.memory.write({ content: 'written here first' });
    expect((await sync(holding, source)).toA).toBe(head + policies);
    await source.close();
  });

  it('refuses, as a copy, a seed into a byte copy of an empty store that the source holds events of, and writes nothing', async () => {
    const original = await openSqlite(tmp.file('original.db'));
    await original.close();
    writeFileSync(tmp.file('copy.db'), readFileSync(tmp.file('original.db')));
    const [reopened, relay] = [await openSqlite(tmp.file('original.db')), await openSqlite(tmp.file('relay.db'))];
    await reopened.memory.write({ content: 'written on the original' });
    await sync(reopened, relay);
    const copy = await openSqlite(tmp.file('copy.db'));
    const error = await sync(copy, relay).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncConflictError);
    expect((error as SyncConflictError).reason).toBe('copy');
    for (const p of [reopened, relay]) await p.close();
    await expectEmpty(copy);
  });
});
