/**
 * A purge on PostgreSQL followed by the documented steps (docs/contract.md
 * §7, "Purge"; the package README) leaves the erased text, and the input
 * hashes of the operations that wrote it, in no file of the cluster: heap,
 * indexes, TOAST, pg_wal, everything under the data directory. The cluster is this file's own, set up as the steps ask
 * (`wal_recycle = off`, no WAL kept for replicas or archives), with full-page
 * writes on, as a production server has them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresProvider } from '../src/index.js';
import { openPostgres } from '../src/index.js';
import type { OwnCluster } from './start-cluster.js';
import { startCluster } from './start-cluster.js';

/** One lower-case token, so the full-text lexeme stored for it (tsvector and GIN pages) is the same bytes. */
const SECRET = 'zqxjvbkwafterpurge4417';

let cluster: OwnCluster;

beforeAll(async () => {
  cluster = await startCluster(['full_page_writes=on', 'wal_recycle=off']);
});

afterAll(async () => {
  await cluster?.stop();
});

/** The files under `dir` that hold `needle`, relative to `dir`. */
function filesHolding(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  const out: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (error) {
      // A temporary file the server removed while the scan ran.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if (data.includes(bytes)) out.push(path.slice(dir.length + 1));
  }
  return out;
}

describe('purge on PostgreSQL, then the documented steps', () => {
  let provider: PostgresProvider;

  beforeAll(async () => {
    provider = await openPostgres(cluster.url, { schema: 'erasure' });
  });

  afterAll(async () => {
    await provider?.close();
  });

  it('leaves the erased text, and the input hashes of its operations, in no file under the data directory', async () => {
    const scope = ['user', 'leaving'];
    const session = await provider.sessions.create({ title: `about ${SECRET}`, scope, operationId: 'create-1' });
    await provider.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `my code is ${SECRET}`, operationId: 'turn-1' });
    await provider.skills.upsert({ slug: 'recall-code', name: 'Recall', body: `say ${SECRET}`, scope });
    await provider.memory.write({ content: `the code is ${SECRET}`, scope, operationId: 'memory-1' });
    await provider.saveSnapshot();
    const kept = await provider.memory.write({ content: 'an unrelated note', scope: ['user', 'staying'] });

    const hashes = (await provider.log.read({ stream: 'state' }))
      .map((event) => (event.payload as { operation?: { inputHash?: string } }).operation?.inputHash)
      .filter((hash) => hash !== undefined);
    expect(hashes).toHaveLength(3);
    expect((await provider.purge({ namespace: scope, reason: 'user left' })).seq).toBeGreaterThan(0);
    // The purge alone erases the rows but not the bytes: old row versions, index entries and WAL still hold them.
    expect(filesHolding(cluster.dataDir, SECRET)).not.toEqual([]);

    const result = await provider.compact();
    expect(result).toMatchObject({ skipped: [], walSwitched: true, remaining: [] });
    expect(result.tables).toEqual(expect.arrayContaining(['events', 'sessions', 'turns', 'skills', 'memory', 'snapshots']));
    expect(filesHolding(cluster.dataDir, SECRET)).toEqual([]);
    // Nor the input hashes of the operations that wrote the erased records, which would confirm a guess of them.
    for (const hash of hashes) expect(filesHolding(cluster.dataDir, hash)).toEqual([]);
    // What the purge kept is still there and still reads.
    expect((await provider.memory.get(kept.id)).content).toBe('an unrelated note');
  });

  it('leaves a working memory document a purge by text erased, every version of it, in no file under the data directory', async () => {
    const scope = ['user', 'ada'];
    const secret = 'wqmzvkplworkingmem2291';
    const older = 'yrtxbnqoldversion5530';
    const first = await provider.workingMemory.replace({ scope, text: `# Ada\n- code ${secret}`, operationId: 'working-1' });
    await provider.workingMemory.patch({ scope, append: `- note ${older}` });
    await provider.workingMemory.patch({ scope, find: older, replace: 'done' });
    await provider.saveSnapshot();
    expect((await provider.purge({ matching: secret, reason: 'erasure request' })).memory).toEqual([first.id]);
    expect(await provider.workingMemory.get({ scope })).toBeNull();
    expect((await provider.compact()).remaining).toEqual([]);
    expect(filesHolding(cluster.dataDir, secret)).toEqual([]);
    expect(filesHolding(cluster.dataDir, older)).toEqual([]);
  });
});
