/**
 * Concurrent checkpointers on one SQLite file share group commits: callers
 * that each save again as soon as their previous save returns (a server
 * running many conversations) queue for one transaction per round, instead
 * of the first of each round committing alone and the rest after it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

describe('checkpoint group commit', () => {
  it('commits 16 threads saving in rounds in about one transaction per round', async () => {
    const conn = Connection.open(tmp.file(), DEFAULT_CONNECTION_OPTIONS);
    conn.configure(DEFAULT_CONNECTION_OPTIONS);
    prepareSchema(conn, inspectDatabase(conn));
    const log = new SqliteLog(conn);
    const provider = createStateProvider(new SqliteBackend(conn, log, new Projection(conn, new VectorIndexes(conn)), sqliteQueries(conn), undefined));
    let commits = 0;
    const commit = conn.commit.bind(conn);
    conn.commit = () => {
      commits += 1;
      commit();
    };
    const threads = 16;
    const rounds = 8;
    await Promise.all(
      Array.from({ length: threads }, async (_, t) => {
        let parent: string | null = null;
        for (let round = 0; round < rounds; round += 1) {
          const checkpointId = `c${String(round).padStart(3, '0')}`;
          // A few awaits of the caller's own between saves, as a checkpointer serializing its value has.
          for (let i = 0; i < 5; i += 1) await Promise.resolve();
          await provider.checkpoints.put({ threadId: `t${t}`, checkpointId, parentCheckpointId: parent, checkpoint: { round } });
          parent = checkpointId;
        }
      }),
    );
    // One transaction per round, and one more where the first caller came before the others.
    expect(commits).toBeLessThanOrEqual(rounds + 1);
    for (let t = 0; t < threads; t += 1) expect((await provider.checkpoints.get({ threadId: `t${t}` }))?.checkpoint.checkpointId).toBe('c007');
    await provider.close();
  });
});
