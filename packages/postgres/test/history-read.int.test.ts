/**
 * History on PostgreSQL reads a record's events through the history index
 * in one query (`recordEvents`, as SQLite does): the versions equal the
 * in-memory provider's for the same writes, and an index row naming an
 * event the log lacks, or an event row changed since it was written, is a
 * `CorruptionError`.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Provider } from '@agentstate/core';
import { CorruptionError, createInMemoryProvider } from '@agentstate/core';
import type { Sql } from '../src/database.js';
import { Database } from '../src/database.js';
import { tableLookups } from '../src/lookups.js';
import { deterministic, fresh } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A session with turns interleaved with other writes, and a memory item rewritten: records whose events are not in one run. */
async function populate(p: Provider): Promise<{ session: string; item: string }> {
  const session = await p.sessions.create({ title: 'long' });
  const item = await p.memory.write({ key: 'plan', content: 'Ship on Friday' });
  for (let i = 0; i < 12; i += 1) {
    await p.sessions.appendTurn({ sessionId: session.id, role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` });
    await p.skills.upsert({ slug: `skill-${i % 3}`, body: `body ${i}` });
    if (i % 4 === 0) await p.memory.write({ key: 'plan', content: `Ship in ${i} days` });
  }
  return { session: session.id, item: item.id };
}

/** Runs one statement on its own connection, as damage from outside the library would. */
async function damage(url: string, text: string, values: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe('history on PostgreSQL', () => {
  it('reads every version as the in-memory provider does, in one query', async () => {
    const f = await fresh(deterministic(9));
    cleanups.push(f.close);
    const memory = createInMemoryProvider(deterministic(9));
    const ids = await populate(f.provider);
    await populate(memory);
    for (const id of [ids.session, ids.item]) {
      const versions = await f.provider.history(id);
      expect(versions.length).toBeGreaterThan(3);
      expect(versions).toEqual(await memory.history(id));
    }

    // The look-up itself: one statement for all of a record's events, each beside its seq.
    const db = new Database(new pg.Pool({ connectionString: f.url, max: 1 }), f.schema, true);
    cleanups.push(() => db.close());
    let statements = 0;
    const counted: Sql = {
      rows: (text, values) => {
        statements += 1;
        return db.rows(text, values);
      },
      exec: (text, values) => db.exec(text, values),
      later: (text, values) => db.later(text, values),
      batch: (all) => db.batch(all),
      sent: 0,
    };
    const lookups = tableLookups(db, counted);
    expect(lookups.recordEvents).toBeDefined();
    const events = await lookups.recordEvents!(ids.session);
    expect(statements).toBe(1);
    expect(events.map((e) => e.seq)).toEqual(await lookups.recordSeqs(ids.session));
    expect(events.map((e) => ('event' in e ? e.event?.seq : undefined))).toEqual(events.map((e) => e.seq));
    expect(await lookups.recordEvents!('no-such-record')).toEqual([]);
  });

  it('refuses an index row naming an event the log lacks, and an event row changed since', async () => {
    const f = await fresh();
    cleanups.push(f.close);
    const { item } = await populate(f.provider);
    await damage(f.url, `INSERT INTO "${f.schema}".record_events (record_id, seq) VALUES ($1, 10000)`, [item]);
    await expect(f.provider.history(item)).rejects.toThrow(CorruptionError);
    await expect(f.provider.history(item)).rejects.toThrow(/log has no such event/);

    await damage(f.url, `DELETE FROM "${f.schema}".record_events WHERE seq = 10000`);
    await damage(
      f.url,
      `UPDATE "${f.schema}".events SET payload = replace(payload, 'Friday', 'Sunday')
        WHERE stream = 'state' AND seq = (SELECT min(seq) FROM "${f.schema}".record_events WHERE record_id = $1)`,
      [item],
    );
    await expect(f.provider.history(item)).rejects.toThrow(CorruptionError);
  });
});
