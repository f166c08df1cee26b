/**
 * The PostgreSQL server of the PostgreSQL benchmark: the one
 * AGENTSTATE_BENCH_POSTGRES_URL names, or a throwaway cluster started from
 * the machine's binaries with default durability (fsync and synchronous
 * commit on), removed when stopped.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A server the benchmark writes to, and how to put it away. */
export interface Server {
  url: string;
  /** Its version and durability settings, for the output's first line. */
  version: string;
  stop(): void;
}

/** A TCP port free on loopback now. */
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

/** The given server, or a throwaway cluster (as the `postgres` user when run as root) with default durability. */
export async function startServer(): Promise<Server> {
  const given = process.env.AGENTSTATE_BENCH_POSTGRES_URL;
  const version = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ version: string; fsync: string; commit: string }>(
      `SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS commit`,
    );
    await client.end();
    return `${rows[0]!.version}, fsync ${rows[0]!.fsync}, synchronous_commit ${rows[0]!.commit}`;
  };
  if (given) return { url: given, version: await version(given), stop: () => undefined };
  const bin = process.env.AGENTSTATE_TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
  if (!existsSync(join(bin, 'initdb'))) throw new Error(`set AGENTSTATE_BENCH_POSTGRES_URL, or install postgresql-15 (${bin}/initdb is missing)`);
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-bench-pg-'));
  const data = join(dir, 'data');
  const run = (command: string, args: string[]) => {
    const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    execFileSync(file, argv, { stdio: 'pipe' });
  };
  if (root) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  run('pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`, '-l', join(dir, 'server.log'), '-w', 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    version: await version(url),
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The URL with `synchronous_commit=off` for its sessions: bulk loads that need no durability. */
export const fastUrl = (url: string) => `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c synchronous_commit=off')}`;

/** Drops `schema` and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
