import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ok, okJson, tempDir } from './helpers.js';
import { exportText, generateEvents, writeDatabase } from './generate.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

const EVENTS = 100_000;

describe('a 100,000-event database', () => {
  it('round-trips export → import → verify with identical snapshot bytes', async () => {
    const events = await generateEvents(EVENTS);
    const source = tmp.path('source.db');
    await writeDatabase(source, events);
    const before = okJson(['verify', '--db', source]);
    expect(before).toMatchObject({ ok: true, events: EVENTS });

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
    const after = timed('verify', () => okJson(['verify', '--db', target]));

    expect(readFileSync(exported, 'utf8')).toBe(exportText(events));
    expect(after).toMatchObject({ ok: true, events: EVENTS, tablesSeq: EVENTS, differences: [] });
    // verify proved each database's tables equal, byte for byte, the snapshot text these hash.
    expect(after.bytes).toBeGreaterThan(10_000_000);
    expect(imported.sha256).toBe(before.sha256);
    expect(after.sha256).toBe(before.sha256);
    expect(after.bytes).toBe(before.bytes);
    console.log(`100k round trip (ms): ${JSON.stringify(timings)}; export ${statSync(exported).size} bytes`);
  }, 180_000);
});
