import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ok, okJson, tempDir } from './helpers.js';
import { writeExport } from './generate.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

const EVENTS = 100_000;

describe('a 100,000-event database', () => {
  it('round-trips export → import → verify with identical snapshot bytes', async () => {
    const seed = tmp.path('seed.jsonl');
    await writeExport(seed, EVENTS);
    const source = tmp.path('source.db');
    ok(['import', seed, '--db', source]);

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
    timed('import', () => ok(['import', exported, '--db', target]));
    const report = timed('verify', () => okJson(['verify', '--db', target]));
    expect(report).toMatchObject({ ok: true, events: EVENTS, tablesSeq: EVENTS, differences: [] });

    expect(readFileSync(exported, 'utf8')).toBe(readFileSync(seed, 'utf8'));
    const a = ok(['snapshot', '--print', '--db', source]);
    const b = ok(['snapshot', '--print', '--db', target]);
    expect(b.length).toBeGreaterThan(1_000_000);
    expect(b === a).toBe(true);
    console.log(`100k round trip (ms): ${JSON.stringify(timings)}; export ${statSync(exported).size} bytes`);
  }, 180_000);
});
