import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeSnapshot } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { ok, okJson, tempDir } from './helpers.js';
import { exportText, generateEvents, writeDatabase } from './generate.js';
import { createHash } from 'node:crypto';

const tmp = tempDir();
afterAll(tmp.cleanup);

/**
 * Three batches of 5,000 events (export, import and fold each work in such batches): a first, a middle and a last,
 * partial one, each kind of batch there is; more batches repeat the middle one. The benchmark runs the same test at
 * 100,000 events (`npm run roundtrip -w @agentstate/bench`).
 */
const EVENTS = Number(process.env.AGENTSTATE_ROUNDTRIP_EVENTS ?? 11_000);

async function snapshotText(path: string): Promise<string> {
  const db = await openSqlite(path);
  try {
    return encodeSnapshot(await db.snapshot());
  } finally {
    await db.close();
  }
}

describe(`a ${EVENTS.toLocaleString('en')}-event database`, () => {
  it('round-trips export → import → verify with identical snapshot bytes', async () => {
    const events = await generateEvents(EVENTS);
    const source = tmp.path('source.db');
    await writeDatabase(source, events);

    const timings: Record<string, number> = {};
    const timed = <T>(name: string, fn: () => T): T => {
      const started = performance.now();
      try {
        return fn();
      } finally {
        timings[name] = Math.round(performance.now() - started);
      }
    };
    const exported = tmp.path('export.jsonl');
    const target = tmp.path('target.db');
    timed('export', () => ok(['export', '--out', exported, '--db', source]));
    const imported = timed('import', () => okJson(['import', exported, '--db', target]));
    const verified = timed('verify', () => okJson(['verify', '--db', target]));

    expect(readFileSync(exported, 'utf8')).toBe(exportText(events));
    expect(verified).toMatchObject({ ok: true, events: EVENTS, tablesSeq: EVENTS, differences: [] });
    const before = await snapshotText(source);
    const after = await snapshotText(target);
    expect(after.length).toBeGreaterThan(EVENTS * 100);
    expect(after === before).toBe(true);
    const hash = createHash('sha256').update(before).digest('hex');
    expect(imported.sha256).toBe(hash);
    expect(verified.sha256).toBe(hash);
    console.log(`${EVENTS} events round trip (ms): ${JSON.stringify(timings)}; export ${statSync(exported).size} bytes`);
  });
});
