import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    reporters: ['default', './tools/count-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One throwaway PostgreSQL cluster for the run; each file works in a database of its own on it.
    globalSetup: ['packages/postgres/test/global-setup.ts'],
  },
});
