/**
 * Retention on a real SQLite file with writers in other processes: sweeps
 * running while they write tombstone only what a policy covers when each
 * tombstone commits, so nothing a policy does not cover is lost.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { STATE_STREAM } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { tempDir } from './helpers.js';

const WRITER = fileURLToPath(new URL('./fixtures/retention-writer.mjs', import.meta.url));
const run = promisify(execFile);

interface WriterReport {
  facts: string[];
  converted: string[];
  beaten: number;
}

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('retention sweeps on a SQLite file', () => {
  it('lose nothing a policy does not cover while three other processes write', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = t.file();
    const p = await openSqlite(file, { busyTimeoutMs: 60_000 });
    try {
      // Scratch memory expires a millisecond after its last write: every sweep finds work.
      await p.retention.set({ record: 'memory', memoryKind: 'scratch', maxAge: 1 });
      let done = false;
      const writers = Promise.all(
        ['a', 'b', 'c'].map((name) => run(process.execPath, [WRITER, file, name, '40']).then(({ stdout }) => JSON.parse(stdout) as WriterReport)),
      ).finally(() => {
        done = true;
      });
      let swept = 0;
      let sweeps = 0;
      while (!done) {
        swept += (await p.retention.apply()).memory;
        sweeps += 1;
        // A sweep with nothing to do never waits on I/O: let the writers' exits be noticed.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const reports = await writers;
      swept += (await p.retention.apply()).memory;

      const kept = reports.flatMap((r) => [...r.facts, ...r.converted]);
      for (const id of kept) expect((await p.memory.get(id)).kind, id).toBe('fact');
      const live = await p.memory.recall({ limit: 500 });
      expect(live.map((m) => m.kind).every((kind) => kind === 'fact')).toBe(true);
      expect(live.length).toBe(kept.length);
      // Every scratch item written was swept exactly once, except those converted in time.
      const scratch = 3 * 40;
      expect(swept).toBe(scratch - reports.reduce((n, r) => n + r.converted.length, 0));
      expect(sweeps).toBeGreaterThan(1);
      expect(await p.log.head(STATE_STREAM)).toBe(3 * 40 * 2 + reports.reduce((n, r) => n + r.converted.length, 0) + swept);
      expect((await p.verify()).ok).toBe(true);
    } finally {
      await p.close();
    }
  });
});
