/**
 * Group commit on SQLite, with failures injected where only a real
 * transaction can undo them: concurrent writes share transactions; a write
 * that fails after its event was appended (in the projection) is undone
 * alone and rejects alone; a COMMIT that fails rejects every write of its
 * group and keeps none; seqs stay dense and the tables equal a replay.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateChange } from '@agentstate/core';
import { encodeSnapshot, EventTypes, replay, STATE_STREAM, UnavailableError } from '@agentstate/core';
import { createStateProvider } from '@agentstate/core/backend';
import { SqliteBackend } from '../src/backend.js';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from '../src/connection.js';
import { SqliteLog } from '../src/log.js';
import { inspectDatabase, prepareSchema } from '../src/schema/index.js';
import { Projection } from '../src/projection.js';
import { sqliteQueries } from '../src/queries.js';
import { VectorIndexes } from '../src/vectors.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

/** A provider over a backend whose connection and projection the test can reach into. */
function open() {
  const conn = Connection.open(tmp.file(), DEFAULT_CONNECTION_OPTIONS);
  conn.configure(DEFAULT_CONNECTION_OPTIONS);
  prepareSchema(conn, inspectDatabase(conn));
  const log = new SqliteLog(conn);
  const projection = new Projection(conn, new VectorIndexes(conn));
  const backend = new SqliteBackend(conn, log, projection, sqliteQueries(conn), undefined);
  const provider = createStateProvider(backend);
  let begins = 0;
  const begin = conn.begin.bind(conn);
  conn.begin = () => {
    begins += 1;
    begin();
  };
  return { conn, log, projection, provider, begins: () => begins };
}

async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Dense seqs, and tables equal to a replay of the log. */
async function expectConsistent(provider: ReturnType<typeof open>['provider']): Promise<void> {
  const events = await provider.log.read({ stream: STATE_STREAM });
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const replayed = await replay(provider.log, { fromScratch: true });
  expect(encodeSnapshot(await provider.snapshot())).toBe(encodeSnapshot(await replayed.snapshot()));
}

describe('group commit', () => {
  it('runs 64 concurrent appends in far fewer transactions, in call order, with dense seqs', async () => {
    const { provider, begins } = open();
    const s = await provider.sessions.create({});
    const before = begins();
    const turns = await Promise.all(
      Array.from({ length: 64 }, (_, i) => provider.sessions.appendTurn({ sessionId: s.id, role: 'user', content: `turn ${i}` })),
    );
    expect(turns.map((t) => t.seq)).toEqual(turns.map((_, i) => i + 1));
    expect(turns.map((t) => t.content)).toEqual(turns.map((_, i) => `turn ${i}`));
    expect(begins() - before).toBeLessThan(10);
    await expectConsistent(provider);
    await provider.close();
  });

  it('undoes and rejects only the write whose projection fails after its event was appended', async () => {
    const { projection, provider } = open();
    const s = await provider.sessions.create({});
    const apply = projection.apply.bind(projection);
    projection.apply = (change: StateChange, seq: number) => {
      apply(change, seq);
      if (change.type === EventTypes.TurnAppended && change.payload.turn.content.startsWith('fail')) throw new Error('injected projection failure');
    };
    const contents = ['a', 'fail 1', 'b', 'c', 'fail 2', 'd'];
    const outcomes = await Promise.all(contents.map((content) => settle(provider.sessions.appendTurn({ sessionId: s.id, role: 'user', content }))));
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true, true, false, true]);
    for (const o of outcomes) if (!o.ok) expect(String(o.error)).toContain('injected projection failure');
    const kept = outcomes.flatMap((o) => (o.ok ? [o.value] : []));
    expect(kept.map((t) => t.seq)).toEqual([1, 2, 3, 4]);
    expect((await provider.sessions.turns(s.id)).map((t) => t.content)).toEqual(['a', 'b', 'c', 'd']);
    await expectConsistent(provider);
    await provider.close();
  });

  it('rejects every write of a group whose COMMIT fails, keeps none of them, and goes on', async () => {
    const { conn, provider } = open();
    const s = await provider.sessions.create({});
    const commit = conn.commit.bind(conn);
    let countdown = 0;
    /** Makes the `n`-th COMMIT from now fail. */
    const failCommit = (n: number) => {
      countdown = n;
    };
    conn.commit = () => {
      countdown -= 1;
      if (countdown === 0) {
        conn.rollback();
        throw new UnavailableError('injected COMMIT failure');
      }
      commit();
    };
    const append = (content: string) => settle(provider.sessions.appendTurn({ sessionId: s.id, role: 'user', content }));
    // 'a' runs alone and commits; 'b', 'c', 'd' queue behind it and share the second COMMIT, which fails.
    failCommit(2);
    const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map(append));
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, false, false]);
    for (const o of outcomes.slice(1)) if (!o.ok) expect(o.error).toBeInstanceOf(UnavailableError);
    expect((await provider.sessions.turns(s.id)).map((t) => t.content)).toEqual(['a']);
    // The next writes go on from seq 2, as if the failed group had never been.
    const next = await Promise.all(['e', 'f', 'g'].map(append));
    expect(next.map((o) => (o.ok ? o.value.seq : 0))).toEqual([2, 3, 4]);
    await expectConsistent(provider);
    await provider.close();
  });
});
