/**
 * The PostgreSQL server the tests use: the one AGENTSTATE_TEST_POSTGRES_URL
 * names, or a throwaway cluster started from the machine's binaries
 * (`initdb` into a temporary folder, as the `postgres` user when running as
 * root, on a free port of 127.0.0.1 and a private socket folder), stopped
 * and removed when the test file ends. One cluster per test file, started
 * on first use; each test gets a schema of its own.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';

const BIN = process.env.AGENTSTATE_TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** A running server and how to reach it. */
export interface TestServer {
  url: string;
  stop(): Promise<void>;
  /** Stops the server as a crash would (`pg_ctl stop -m immediate`): no checkpoint, clients cut off. */
  crash(): void;
  /** Starts the server again after {@link crash}, on the same port, recovering from its WAL. */
  restart(): void;
}

/** A throwaway cluster of a test's own, with its data directory, for a test that reads the server's files. */
export interface OwnCluster extends TestServer {
  /** The cluster's data directory (`initdb -D`). */
  dataDir: string;
}

let started: Promise<TestServer> | undefined;
let schemas = 0;

/** The test server, started once per test file on first use and stopped after the file. */
export function testServer(): Promise<TestServer> {
  started ??= startServer();
  return started;
}

// Registered when a test file imports this module: a hook registered inside a running test would be ignored.
afterAll(async () => {
  if (started !== undefined) await (await started).stop();
});

/** A schema name no other test of this run uses. */
export function freshSchema(prefix = 't'): string {
  schemas += 1;
  return `${prefix}_${process.pid}_${schemas}`;
}

/** Drops a schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

async function startServer(): Promise<TestServer> {
  const given = process.env.AGENTSTATE_TEST_POSTGRES_URL;
  if (given) {
    const refuse = (): never => {
      throw new Error('a server given by AGENTSTATE_TEST_POSTGRES_URL cannot be crashed or restarted by the tests');
    };
    return { url: given, stop: async () => undefined, crash: refuse, restart: refuse };
  }
  return startCluster();
}

/**
 * Starts a cluster of the test's own from the machine's binaries, with
 * `settings` (`name=value`) added to the server's; stopped and removed by
 * its `stop`.
 */
export async function startCluster(settings: readonly string[] = []): Promise<OwnCluster> {
  if (!existsSync(join(BIN, 'initdb'))) {
    throw new Error(`the PostgreSQL tests need a server: install postgresql-15 (${BIN}/initdb is missing) or set AGENTSTATE_TEST_POSTGRES_URL`);
  }
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-pg-'));
  const data = join(dir, 'data');
  const run = (command: string, args: string[]): void => {
    const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(BIN, command), ...args]] : [join(BIN, command), args];
    execFileSync(file, argv, { stdio: 'pipe' });
  };
  if (root) {
    const { uid, gid } = lookupPostgresUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  // Behaviour, not power-loss durability, is under test: no fsync.
  const base = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const options = [base, ...settings.map((setting) => `-c ${setting}`)].join(' ');
  const start = (): void => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
  start();
  return {
    dataDir: data,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    crash: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    restart: start,
  };
}

function lookupPostgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
