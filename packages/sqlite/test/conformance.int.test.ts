/**
 * The conformance suite of @agentstate/testing against SQLite on real files
 * (durable: reopen; shared storage: a second connection, as another process
 * would open it; other processes: the built package opening the file; a
 * COMMIT made to fail by a deferred constraint), and
 * against `:memory:`; the log suite against the
 * standalone SQLite log.
 */
import { rmSync } from 'node:fs';
import type { Provider } from '@agentstate/core';
import { runLogConformance, runProviderConformance } from '@agentstate/testing';
import type { ProviderFactory, ProviderFactoryOptions } from '@agentstate/testing';
import { openSqlite, openSqliteLog } from '../src/index.js';
import type { SqliteLog, SqliteProvider } from '../src/index.js';
import { failCommitsOf, MEMORY_DIR, tempDir } from './helpers.js';

const BUILT = new URL('../dist/index.js', import.meta.url).href;

/** Where each provider's file lives, so reopen, openShared and destroy find it. */
const files = new WeakMap<Provider, { path: string; cleanup: () => void }>();

/**
 * Fewer runs of each property than in-memory's 20. A property runs its full count on the in-memory provider, over the
 * same fold and merge rules; here it exercises what SQLite adds (its tables, its fold, its transactions) on the same
 * arbitraries, and its faults show in a few runs.
 */
const suite = { propertyRuns: 8 };

function open(path: string, options: ProviderFactoryOptions = {}): Promise<SqliteProvider> {
  // The suite tests behaviour, not power-loss durability: skip the fsync per commit.
  return openSqlite(path, { ...options, synchronous: 'normal' });
}

const onFiles: ProviderFactory = {
  name: 'sqlite (file)',
  create: async (options) => {
    const tmp = tempDir('agentstate-conformance-', MEMORY_DIR);
    const provider = await open(tmp.file(), options);
    files.set(provider, { path: tmp.file(), cleanup: tmp.cleanup });
    return provider;
  },
  reopen: async (provider, options) => {
    const file = files.get(provider)!;
    await provider.close();
    const reopened = await open(file.path, options);
    files.set(reopened, file);
    return reopened;
  },
  openShared: async (provider, options) => {
    const file = files.get(provider)!;
    const shared = await open(file.path, options);
    files.set(shared, { path: file.path, cleanup: () => undefined });
    return shared;
  },
  failCommits: (provider) => failCommitsOf(files.get(provider)!.path),
  // Writer processes open the file through the built package, as open() does.
  processTarget: async (provider) => ({ module: BUILT, open: 'openSqlite', args: [files.get(provider)!.path, { synchronous: 'normal' }] }),
  destroy: async (provider) => {
    await provider.close();
    files.get(provider)?.cleanup();
  },
};

runProviderConformance(onFiles, suite);
runProviderConformance({ name: 'sqlite (:memory:)', create: async (options) => open(':memory:', options) }, suite);

const logDirs = new WeakMap<SqliteLog, string>();

runLogConformance({
  name: 'SqliteLog',
  create: async (options) => {
    const tmp = tempDir('agentstate-log-conformance-', MEMORY_DIR);
    const log = openSqliteLog(tmp.file(), { ...options, synchronous: 'normal' });
    logDirs.set(log, tmp.dir);
    return log;
  },
  destroy: async (log) => {
    await (log as SqliteLog).close();
    const dir = logDirs.get(log as SqliteLog);
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
});
