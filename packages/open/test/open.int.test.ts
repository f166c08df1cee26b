/**
 * `openDatabase` gives every face the same defaults: the database from
 * AGENTSTATE_DB, a folder made for a new file, the offline embedder (so
 * recall with query text is hybrid, where `openSqlite` without an embedder
 * is lexical), and the programs' settings read from the environment.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '@agentstate/core';
import { STATIC_EMBEDDER_ID } from '@agentstate/embeddings';
import { DatabaseNotFoundError, IncompatibleDatabaseError, openSqlite } from '@agentstate/sqlite';
import { openDatabase, SnapshotKeyError } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'agentstate-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FACTS = ['The user prefers dark mode in every editor', 'Deploys go out on Tuesdays'];
const QUESTION = 'does the user like a dark theme';

describe('openDatabase', () => {
  it('opens AGENTSTATE_DB, making its folder, with the offline embedder: recall is hybrid by default', async () => {
    const path = join(dir, 'nested', 'folder', 'state.db');
    const db = await openDatabase(undefined, { env: { AGENTSTATE_DB: path } });
    try {
      expect('path' in db && db.path).toBe(path);
      for (const content of FACTS) await db.memory.write({ content });
      const hits = await db.memory.recall({ query: QUESTION });
      expect(hits[0]!.content).toBe(FACTS[0]);
    } finally {
      await db.close();
    }
    // The library's own opener without an embedder is lexical: no word of the question is in the fact.
    const plain = await openSqlite(path);
    try {
      expect(await plain.memory.recall({ query: QUESTION })).toEqual([]);
      await expect(plain.memory.recall({ query: QUESTION, mode: 'semantic' })).rejects.toThrow(ValidationError);
    } finally {
      await plain.close();
    }
  });

  it("takes 'none' or an embedder of the caller's instead", async () => {
    const path = join(dir, 'choice.db');
    const none = await openDatabase(path, { embedder: 'none' });
    await none.memory.write({ content: FACTS[0]! });
    expect(await none.memory.recall({ query: QUESTION })).toEqual([]);
    await none.close();
    let embedded = 0;
    const own = await openDatabase(path, {
      embedder: {
        id: 'counting',
        dimensions: 2,
        embed: async (texts) => {
          embedded += texts.length;
          return texts.map(() => new Float32Array([1, 0]));
        },
      },
    });
    expect((await own.memory.recall({ query: QUESTION, mode: 'semantic' })).map((h) => h.content)).toEqual([FACTS[0]]);
    expect(embedded).toBeGreaterThan(0);
    await own.close();
    expect(STATIC_EMBEDDER_ID).toMatch(/glove/);
  });

  it('refuses a missing or empty file with create: false, and creates nothing', async () => {
    const missing = join(dir, 'absent', 'state.db');
    await expect(openDatabase(missing, { create: false })).rejects.toThrow(DatabaseNotFoundError);
    await expect(openDatabase(missing, { create: false })).rejects.toThrow(`no agentstate database at ${missing}: the folder`);
    expect(existsSync(join(dir, 'absent'))).toBe(false);
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    await expect(openDatabase(empty, { create: false })).rejects.toThrow(IncompatibleDatabaseError);
  });

  it('reads AGENTSTATE_DURABILITY and AGENTSTATE_SNAPSHOT_KEY, refusing bad values before opening', async () => {
    const path = join(dir, 'settings.db');
    await expect(openDatabase(path, { env: { AGENTSTATE_DURABILITY: 'normal' } })).rejects.toThrow(
      /AGENTSTATE_DURABILITY: must be 'power-loss' or 'process-crash'/,
    );
    await expect(openDatabase(path, { env: { AGENTSTATE_SNAPSHOT_KEY: join(dir, 'no.key') } })).rejects.toThrow(SnapshotKeyError);
    expect(existsSync(path)).toBe(false);
    const key = join(dir, 'snapshot.key');
    writeFileSync(key, 'a secret of more than sixteen bytes\n');
    const sealed = await openDatabase(path, { env: { AGENTSTATE_SNAPSHOT_KEY: key, AGENTSTATE_DURABILITY: 'process-crash' } });
    await sealed.memory.write({ content: FACTS[1]! });
    await sealed.saveSnapshot();
    expect((await sealed.verify()).skippedSnapshots).toEqual([]);
    await sealed.close();
    // Without the key the snapshot, sealed with it, cannot be checked.
    const unsealed = await openDatabase(path, { env: {} });
    expect((await unsealed.verify()).skippedSnapshots).toMatchObject([{ damaged: false, sealedWith: expect.stringMatching(/hmac/) }]);
    await unsealed.close();
  });
});
