/** V9: views and exports at any position of a log written by concurrent writers are consistent cuts (docs/contract.md §11). */
import { encodeSnapshot, STATE_STREAM } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { exportLines, readExport } from '../suite/export-read.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, property } from '../suite/harness.js';
import { expectViewIsReplay, replayedAt } from '../suite/log-cut.js';
import { openForWriters, runWriters } from '../suite/writers.js';

export const cutChecks: ProviderCheck[] = checks(['eventSourced'], {
  'V9 at({ seq }) and an export up to a seq, at random positions of a log written by 8 writers at once, hold exactly the events up to it': async (env) => {
    const { p, plans } = await openForWriters(env, 8, 24);
    // Writers on providers of their own where the storage has them (G9 runs them as processes), and a snapshot stored while they run: views below and above it
    // fold from different starts.
    const [reports] = await Promise.all([runWriters(env, p, plans, { processes: false }), p.saveSnapshot()]);
    expect(reports.flat().filter((line) => 'failed' in line)).toEqual([]);
    const events = await p.log.read({ stream: STATE_STREAM });
    const positions = [0, ...events.map((e) => e.seq)];
    await property(env, fc.constantFrom(...positions), { examples: [[0], [positions.at(-1)!]] }, async (seq) => {
      const below = events.filter((e) => e.seq <= seq);
      await expectViewIsReplay(p, seq);
      const lines = (await exportLines(p.log, { upTo: seq })).slice(0, -1).map((line) => JSON.parse(line) as { stream: string; seq: number });
      // An export numbers the events it holds densely from 1, whatever gaps the positions have (docs/contract.md §7).
      expect(lines.filter((l) => l.stream === STATE_STREAM).map((l) => l.seq)).toEqual(below.map((_, i) => i + 1));
      expect(encodeSnapshot(await readExport(p.log, { upTo: seq })), `export up to ${seq}`).toBe(encodeSnapshot(await replayedAt(p.log, seq)));
    });
  },
});
