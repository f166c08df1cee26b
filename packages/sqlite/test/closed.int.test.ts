/**
 * A closed database and an ended write transaction refuse further use
 * with core's `ClosedError` (code `closed`), for reads as for writes, never
 * with the driver's "connection is not open".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClosedError, STATE_STREAM } from '@agentstate/core';
import type { StateChange } from '@agentstate/core';
import { SqliteBackend } from '../src/backend.js';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from '../src/connection.js';
import { openSqlite, openSqliteLog } from '../src/index.js';
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

async function refusal(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a closed database', () => {
  it('refuses every read and write of the provider and its log with ClosedError', async () => {
    const path = tmp.file();
    const provider = await openSqlite(path);
    const session = await provider.sessions.create({ title: 'before' });
    await provider.close();
    const calls: Record<string, () => Promise<unknown>> = {
      'sessions.create': () => provider.sessions.create({}),
      'sessions.get': () => provider.sessions.get(session.id),
      'sessions.list': () => provider.sessions.list(),
      'skills.list': () => provider.skills.list(),
      'memory.recall': () => provider.memory.recall({ query: 'before' }),
      snapshot: () => provider.snapshot(),
      saveSnapshot: () => provider.saveSnapshot(),
      rebuild: () => provider.rebuild(),
      'log.read': () => provider.log.read({ stream: STATE_STREAM }),
      'log.head': () => provider.log.head(STATE_STREAM),
      'log.append': () => provider.log.append({ stream: 'notes', type: 'noted', payload: {} }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const error = await refusal(call);
      expect(error, name).toBeInstanceOf(ClosedError);
      expect((error as ClosedError).code, name).toBe('closed');
      expect((error as ClosedError).message, name).toContain(path);
    }
    await provider.close();
  });

  it('refuses reads of a bare log after close', async () => {
    const log = openSqliteLog(tmp.file());
    await log.close();
    expect(await refusal(() => log.head(STATE_STREAM))).toBeInstanceOf(ClosedError);
  });
});

describe('a write transaction', () => {
  /** Three stamped changes (three sessions created) and a fresh backend to commit them to. */
  async function setup() {
    const source = await openSqlite(tmp.file());
    for (const title of ['one', 'two', 'three']) await source.sessions.create({ title });
    const changes = (await source.log.read({ stream: STATE_STREAM })).map((e) => ({ type: e.type, payload: e.payload }) as StateChange);
    await source.close();
    const conn = Connection.open(tmp.file('other.db'), DEFAULT_CONNECTION_OPTIONS);
    conn.configure(DEFAULT_CONNECTION_OPTIONS);
    prepareSchema(conn, inspectDatabase(conn));
    const log = new SqliteLog(conn);
    const backend = new SqliteBackend(conn, log, new Projection(conn, new VectorIndexes(conn)), sqliteQueries(conn), undefined);
    return { changes, conn, log, backend };
  }

  it('commits several changes at consecutive seqs; a savepoint that throws undoes only its own; a commit after the end is a ClosedError', async () => {
    const { changes, conn, log, backend } = await setup();
    let kept: import('@agentstate/core/backend').StateWriteTx | undefined;
    const seqs = await backend.write(async (tx) => {
      kept = tx;
      const first = await tx.commit(changes[0]!, {});
      const undone = await refusal(() =>
        tx.savepoint(async () => {
          await tx.commit(changes[1]!, {});
          throw new Error('fails after committing');
        }),
      );
      expect(undone).toBeInstanceOf(Error);
      expect(await tx.session((changes[1]!.payload as { session: { id: string } }).session.id)).toBeUndefined();
      const third = await tx.savepoint(async () => tx.commit(changes[2]!, {}));
      return [first.seq, third.seq];
    });
    expect(seqs).toEqual([1, 2]);
    expect(log.headNow(STATE_STREAM)).toBe(2);
    expect(await refusal(async () => kept!.commit(changes[1]!, {}))).toBeInstanceOf(ClosedError);
    expect(log.headNow(STATE_STREAM)).toBe(2);
    await conn.close();
  });

  it('keeps nothing when its function throws after committing', async () => {
    const { changes, conn, log, backend } = await setup();
    const error = await refusal(() =>
      backend.write(async (tx) => {
        await tx.commit(changes[0]!, {});
        throw new Error('late failure');
      }),
    );
    expect(error).toBeInstanceOf(Error);
    expect(log.headNow(STATE_STREAM)).toBe(0);
    await conn.close();
  });
});
