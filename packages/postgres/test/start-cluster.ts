/**
 * A throwaway PostgreSQL cluster from the machine's binaries: `initdb` into a
 * temporary folder (as the `postgres` user when running as root), started on
 * a free port of 127.0.0.1 with a private socket folder, and removed when
 * stopped. The test run starts one that every file shares (global-setup.ts);
 * a test that crashes its server or reads its files starts one of its own.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const BIN = process.env.AGENTSTATE_TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** The path of one of the machine's PostgreSQL programs (`initdb`, `pg_ctl`, `pgbench`), from `AGENTSTATE_TEST_POSTGRES_BIN` or Debian's folder. */
export const postgresBinary = (command: string): string => join(BIN, command);

/** A cluster of this machine's, with its data directory. */
export interface OwnCluster {
  url: string;
  /** The cluster's data directory (`initdb -D`). */
  dataDir: string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
  /** Stops the server as a crash would (`pg_ctl stop -m immediate`): no checkpoint, clients cut off. */
  crash(): void;
  /** Starts the server again after {@link crash}, on the same port, recovering from its WAL. */
  restart(): void;
}

/** Whether the machine has the binaries {@link startCluster} needs. */
export function haveBinaries(): boolean {
  return existsSync(postgresBinary('initdb'));
}

/** Why the PostgreSQL tests cannot run here. */
export const NO_SERVER = `the PostgreSQL tests need a server: install postgresql-15 (${BIN}/initdb is missing) or set AGENTSTATE_TEST_POSTGRES_URL`;

/**
 * Starts a cluster from the machine's binaries, with `settings`
 * (`name=value`) added to the server's; stopped and removed by its `stop`.
 */
export async function startCluster(settings: readonly string[] = []): Promise<OwnCluster> {
  if (!haveBinaries()) throw new Error(NO_SERVER);
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-pg-'));
  const data = join(dir, 'data');
  const run = (command: string, args: string[]): void => {
    const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', postgresBinary(command), ...args]] : [postgresBinary(command), args];
    execFileSync(file, argv, { stdio: 'pipe' });
  };
  if (root) {
    const { uid, gid } = lookupPostgresUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  // Behaviour, not power-loss durability, is under test: no fsync. Every test file of a run connects to the same cluster.
  const base = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=500`;
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

/** A port of 127.0.0.1 free when asked (the kernel's choice for port 0); the benchmarks' throwaway cluster takes one too. */
export function freePort(): Promise<number> {
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
