/**
 * Sync across backends (docs/contract.md §12): a SQLite file and a PostgreSQL schema exchange what each
 * lacks, either one first, and end with the same read model; run again, a sync writes nothing; a purge travels;
 * an item changed on both apart merges.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeSnapshot, type EventSourcedProvider, type Snapshot, STATE_STREAM, sync } from '@agentstate/core';
import { openSqlite, type SqliteProvider } from '@agentstate/sqlite';
import type { PostgresProvider } from '../src/index.js';
import { fresh } from './helpers.js';

/** The read model without local seqs, which differ between replicas. */
const replicaText = (snapshot: Snapshot) =>
  encodeSnapshot({ ...snapshot, seq: 0, operations: snapshot.operations.map((operation) => ({ ...operation, seq: 0 })) });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A provider on a new SQLite file and one on a fresh PostgreSQL schema, closed after the test. */
async function pair(): Promise<{ file: SqliteProvider; schema: PostgresProvider }> {
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-pg-sync-'));
  const file = await openSqlite(join(dir, 'state.db'));
  cleanups.push(async () => {
    await file.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { provider, close } = await fresh();
  cleanups.push(close);
  return { file, schema: provider };
}

/** Each store's work, in a scope of its own. */
async function work(p: EventSourcedProvider, scope: string): Promise<void> {
  const session = await p.sessions.create({ title: `written on ${scope}`, scope: [scope] });
  await p.sessions.appendTurns(session.id, [
    { role: 'user', content: `hello from ${scope}` },
    { role: 'assistant', content: 'hello' },
  ]);
  const item = await p.memory.write({ content: `kept on ${scope}`, key: 'note', scope: [scope], operationId: `${scope}-note` });
  await p.memory.update(item.id, { content: `changed on ${scope}` });
  await p.skills.upsert({ slug: 'deploy', body: `steps of ${scope}`, scope: [scope] });
  await p.skills.recordOutcome('deploy', { success: true, scope: [scope] });
}

/** How many `state` events each store holds (PostgreSQL's seqs are positions, which may skip numbers). */
const counts = (...stores: EventSourcedProvider[]) => Promise.all(stores.map(async (p) => (await p.log.read({ stream: STATE_STREAM, afterSeq: 0 })).length));

describe('sync between a SQLite file and a PostgreSQL schema', () => {
  for (const first of ['file', 'schema'] as const)
    it(`converges with the ${first} first, a sync run again writes nothing, and a purge travels`, async () => {
      const stores = await pair();
      await work(stores.file, 'file');
      await work(stores.schema, 'schema');
      const [a, b] = first === 'file' ? [stores.file, stores.schema] : [stores.schema, stores.file];
      const [own, others] = await counts(a, b);
      expect(await sync(a, b, { batchSize: 4 })).toMatchObject({ toA: others, toB: own });
      expect(replicaText(await a.snapshot())).toBe(replicaText(await b.snapshot()));
      for (const p of [a, b]) expect((await p.verify()).ok).toBe(true);
      const after = await counts(a, b);
      expect(after).toEqual([own! + others!, own! + others!]);
      for (const [x, y] of [
        [a, b],
        [b, a],
      ])
        expect(await sync(x!, y!)).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
      expect(await counts(a, b)).toEqual(after);
      // A purge on the second store travels to the first: neither log holds the text any more.
      const [session] = await b.sessions.list({ scope: [first], limit: 1 });
      await b.purge({ id: session!.id, reason: 'erasure request' });
      expect(await sync(a, b)).toEqual({ toA: 1, toB: 0, merged: 0, batches: 1 });
      expect(replicaText(await a.snapshot())).toBe(replicaText(await b.snapshot()));
      for (const p of [a, b]) expect(JSON.stringify(await p.log.read({ stream: STATE_STREAM, afterSeq: 0 }))).not.toContain(`hello from ${first}`);
    });

  it('merges a memory item changed in the file and in the schema apart into the same item, and both verify', async () => {
    const { file, schema } = await pair();
    const item = await file.memory.write({ content: 'shared fact' });
    await sync(file, schema);
    await schema.memory.update(item.id, { content: 'changed in the schema' });
    await file.memory.update(item.id, { content: 'changed in the file' });
    await sync(schema, file);
    expect(await file.memory.getAny(item.id)).toEqual(await schema.memory.getAny(item.id));
    expect((await file.memory.getAny(item.id)).syncVersion).toBe(3);
    expect(replicaText(await file.snapshot())).toBe(replicaText(await schema.snapshot()));
    for (const p of [file, schema]) expect((await p.verify()).ok).toBe(true);
  });
});

describe('the sync reads of a PostgreSQL schema', () => {
  /** The rows each plan node of `text` read from the events table, summed over its loops, as the server ran it. */
  async function eventRowsRead(url: string, text: string, values: unknown[]): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // A read in the round trip of the settled mark is the last statement of its text, run after the others.
      const statements = text.split(';\n');
      await client.query('BEGIN');
      for (const statement of statements.slice(0, -1)) await client.query(statement);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statements.at(-1)}`, values);
      await client.query('COMMIT');
      type Node = { 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; 'Rows Removed by Filter'?: number; Plans?: Node[] };
      const sum = (node: Node): number =>
        (node['Relation Name'] === 'events' ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'] : 0) +
        (node.Plans ?? []).reduce((total, child) => total + sum(child), 0);
      return sum((rows[0]['QUERY PLAN'] as { Plan: Node }[])[0]!.Plan);
    } finally {
      await client.end();
    }
  }

  it('read a few index entries of a store that only received, not every received event, once it knows it holds none of its own', async () => {
    const { provider, url, close } = await fresh();
    cleanups.push(close);
    const source = await openSqlite(join(mkdtempSync(join(tmpdir(), 'agentstate-pg-sync-')), 'source.db'));
    cleanups.push(() => source.close());
    for (let i = 0; i < 300; i += 1) await source.memory.write({ content: `fact ${i}` });
    await sync(provider, source);
    const peer = await source.vector();
    // The first ask looks for an event of its own once.
    expect(await provider.changes(peer)).toEqual([]);
    const sent: { text: string; values: unknown[] }[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
      const [text, values] = args as unknown as [
        string | { text: string; values?: unknown[]; statements?: readonly (readonly [string, unknown[]])[] },
        unknown[] | undefined,
      ];
      if (typeof text === 'string') sent.push({ text, values: values ?? [] });
      // A pipeline's statements, joined as one simple query of them would be; the values its last one is bound to.
      else if (text.statements) sent.push({ text: text.statements.map(([statement]) => statement).join(';\n'), values: text.statements.at(-1)![1] });
      else sent.push({ text: text.text, values: text.values ?? [] });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await provider.vector();
      expect(await provider.changes(peer)).toEqual([]);
    } finally {
      pg.Client.prototype.query = query;
    }
    // The sync reads, which name the origin columns (the settled head's read is the log's, and the planner may scan a
    // 300-row table for it).
    const reads = sent.filter(({ text }) => text.includes('events') && text.includes('origin') && /^\s*(WITH|SELECT)/.test(text));
    expect(reads.length).toBeGreaterThanOrEqual(2);
    for (const { text, values } of reads) expect(await eventRowsRead(url, text, values), text).toBeLessThan(30);
  });
});
