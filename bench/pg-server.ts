/**
 * The PostgreSQL server of the PostgreSQL benchmark: the one
 * AGENTSTATE_BENCH_POSTGRES_URL names, or a throwaway cluster (the tests'
 * `startCluster`) with default durability (fsync, synchronous commit and
 * full-page writes on), removed when stopped.
 */
import pg from 'pg';
import { haveBinaries, startCluster } from '../packages/postgres/test/start-cluster.js';

/** A server the benchmark writes to, and how to put it away. */
export interface Server {
  url: string;
  /** Its version and durability settings, for the output's first line. */
  version: string;
  stop(): Promise<void>;
}

/** The server's version and the settings that make a commit durable. */
async function version(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ version: string; fsync: string; commit: string }>(
    `SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS commit`,
  );
  await client.end();
  return `${rows[0]!.version}, fsync ${rows[0]!.fsync}, synchronous_commit ${rows[0]!.commit}`;
}

/** The given server, or a throwaway cluster with default durability. */
export async function startServer(): Promise<Server> {
  const given = process.env.AGENTSTATE_BENCH_POSTGRES_URL;
  if (given) return { url: given, version: await version(given), stop: async () => undefined };
  if (!haveBinaries()) throw new Error('set AGENTSTATE_BENCH_POSTGRES_URL, or install postgresql-15');
  // The tests turn durability off; a later setting wins, and the first line of the output shows it.
  const cluster = await startCluster(['fsync=on', 'synchronous_commit=on', 'full_page_writes=on']);
  return { url: cluster.url, version: await version(cluster.url), stop: () => cluster.stop() };
}

/** The URL with `synchronous_commit=off` for its sessions: bulk loads that need no durability. */
export const fastUrl = (url: string) => `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c synchronous_commit=off')}`;

/** Runs `sql` on its own connection to `url`. */
export async function runSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Drops `schema` and everything in it. */
export const dropSchema = (url: string, schema: string): Promise<void> => runSql(url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
