/**
 * Two server processes writing the same SQLite file at once: every write
 * lands, outcome counters lose no update, and transcript seqs stay dense.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_STREAM } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { call, connectStdio, tempDir } from './helpers.js';

const WRITES = 100;
/** Outcomes each server records: every other one a success. */
const OUTCOMES = WRITES / 4;
const TURNS = WRITES / 4;
let tmp: ReturnType<typeof tempDir>;
let a: Client;
let b: Client;

beforeAll(async () => {
  tmp = tempDir();
  const args = ['--db', tmp.db, '--scope', 'project:web', '--embedder', 'none'];
  [a, b] = await Promise.all([connectStdio(args), connectStdio(args)]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  tmp?.cleanup();
});

describe('two servers on one database file', () => {
  it(`lose none of 2 × ${WRITES} parallel remembers, outcomes and turns`, async () => {
    await call(a, 'skill_save', { slug: 'shared', body: 'used by both' });
    const { session } = await call(a, 'session_create', { title: 'shared transcript' });
    const burst = (client: Client, name: string) =>
      Promise.all([
        ...Array.from({ length: WRITES }, (_, i) => call(client, 'remember', { content: `${name} fact ${i}`, kind: 'burst' })),
        ...Array.from({ length: OUTCOMES }, (_, i) => call(client, 'skill_record_outcome', { skill: 'shared', success: i % 2 === 0 })),
        ...Array.from({ length: TURNS }, (_, i) => call(client, 'session_append_turn', { sessionId: session.id, role: 'user', content: `${name} ${i}` })),
      ]);
    await Promise.all([burst(a, 'a'), burst(b, 'b')]);

    for (const client of [a, b]) {
      const { hits } = await call(client, 'recall', { kinds: ['burst'], limit: 1000 });
      expect(hits).toHaveLength(2 * WRITES);
      expect(new Set(hits.map((h: { content: string }) => h.content)).size).toBe(2 * WRITES);
    }
    const { skill } = await call(b, 'skill_get', { skill: 'shared' });
    expect(skill).toMatchObject({ uses: 2 * OUTCOMES, wins: 2 * Math.ceil(OUTCOMES / 2), version: 1 });
    const { turns } = await call(b, 'session_read', { sessionId: session.id });
    expect(turns.map((t: { seq: number }) => t.seq)).toEqual(Array.from({ length: 2 * TURNS }, (_, i) => i + 1));

    const events = 2 + 2 * (WRITES + OUTCOMES + TURNS);
    const db = await openSqlite(tmp.db);
    try {
      const log = await db.log.read({ stream: STATE_STREAM });
      expect(log).toHaveLength(events);
      expect(log.map((e) => e.seq)).toEqual(Array.from({ length: events }, (_, i) => i + 1));
      expect(await db.memory.recall({ kinds: ['burst'], limit: 1000 })).toHaveLength(2 * WRITES);
    } finally {
      await db.close();
    }
  });
});
