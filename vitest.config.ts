import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BUILT, builtPackages } from './tools/built-packages.js';
import { HANG_GUARD_MS } from './tools/hang-guard.js';
import SlowFirstSequencer from './tools/slow-first-sequencer.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The integration files that use the run's PostgreSQL cluster: the PostgreSQL package's own and any that imports its
 * test helpers. Those helpers register a file's hooks and make its database when they are imported, so these files
 * need a module registry of their own.
 */
function postgresFiles(): string[] {
  return readdirSync(join(root, 'packages')).flatMap((name) => {
    const dir = `packages/${name}/test`;
    if (!existsSync(join(root, dir))) return [];
    return readdirSync(join(root, dir))
      .filter((file) => file.endsWith('.int.test.ts'))
      .map((file) => `${dir}/${file}`)
      .filter((file) => name === 'postgres' || readFileSync(join(root, file), 'utf8').includes('postgres/test/'));
  });
}

const postgres = postgresFiles();

export default defineConfig({
  plugins: [builtPackages()],
  test: {
    reporters: ['default', './tools/count-reporter.ts'],
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    expect: { poll: { timeout: HANG_GUARD_MS } },
    server: { deps: { external: [BUILT] } },
    pool: 'forks',
    // Files run side by side: most of a file's time is spent waiting on PostgreSQL, child processes, a browser or
    // the disk, so more files than cores keep a small machine busy (vitest's default is one fewer than the cores).
    maxWorkers: 3,
    // The longest files first, so none of them is left to run alone at the end.
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        // Unit files share a process (and the modules it loaded) with the files before them: none of them touches
        // the environment, the working directory or a global, and starting a process for each cost more than most run.
        test: { name: 'unit', include: ['packages/*/test/**/*.test.ts'], exclude: ['**/*.int.test.ts'], isolate: false },
      },
      {
        extends: true,
        // Shared processes too: none of these leaves a variable, the working directory or a global of the process
        // changed (a README example imported here has console.log for the time it runs, then gives it back), and a
        // process started and the built packages loaded again for each cost about a second of CPU a file.
        test: { name: 'int', include: ['packages/*/test/**/*.int.test.ts'], exclude: postgres, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: postgres,
          // One throwaway PostgreSQL cluster for the run; each file works in a database of its own on it.
          globalSetup: ['packages/postgres/test/global-setup.ts'],
        },
      },
    ],
  },
});
