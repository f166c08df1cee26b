import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './tools/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    reporters: ['default', './tools/count-reporter.ts'],
    // A guard against a hang, never a bound on speed: on a loaded machine, with files side by side, a test that spawns
    // processes may take minutes. No test sets a shorter one.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Files run side by side: most of a file's time is spent waiting on PostgreSQL, child processes, a browser or
    // the disk, so more files than cores keep a small machine busy (vitest's default is one fewer than the cores).
    maxWorkers: 3,
    // The longest files first, so none of them is left to run alone at the end.
    sequence: { sequencer: SlowFirstSequencer },
    // One throwaway PostgreSQL cluster for the run; each file works in a database of its own on it.
    globalSetup: ['packages/postgres/test/global-setup.ts'],
  },
});
