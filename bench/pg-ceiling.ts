/**
 * The server's own ceiling, for the writers table (bench/pg-writers.ts):
 * PostgreSQL's `pgbench` running its built-in simple-update transaction
 * (`-N`: `BEGIN`, an `UPDATE`, a `SELECT` and an `INSERT`, `END`; prepared
 * statements) with as many clients as a row has writers, each on its own
 * connection, in a database of its own made for the run and dropped after
 * it. Its client is C and spends little CPU a transaction, so how its rate
 * grows from 1 client to 16 is how far the server alone lets durable writes
 * grow on the machine the run is on, whatever the client.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { postgresBinary } from '../packages/postgres/test/start-cluster.js';
import { runSql } from './pg-server.js';

const run = promisify(execFile);

/** The machine's `pgbench`, beside the binaries the tests' clusters start from; `undefined` without one. */
export const PGBENCH = existsSync(postgresBinary('pgbench')) ? postgresBinary('pgbench') : undefined;

/** The database `pgbench` writes to, on the server of `url`. */
const DATABASE = 'agentstate_bench_pgbench';

/** `url` with its database replaced by `database`. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Makes `pgbench`'s database (scale 10: 1,000,000 accounts, so 16 clients seldom update one row) and returns its URL. */
export async function preparePgbench(url: string): Promise<string> {
  await runSql(url, `DROP DATABASE IF EXISTS ${DATABASE}`);
  await runSql(url, `CREATE DATABASE ${DATABASE}`);
  const target = withDatabase(url, DATABASE);
  await run(PGBENCH!, ['-i', '-q', '-s', '10', target]);
  return target;
}

/** Drops `pgbench`'s database. */
export const dropPgbench = (url: string): Promise<void> => runSql(url, `DROP DATABASE IF EXISTS ${DATABASE}`);

/** Runs `clients` clients (on at most 2 threads) for `seconds`; the transactions they committed. */
export async function pgbench(target: string, clients: number, seconds: number): Promise<number> {
  const { stdout } = await run(PGBENCH!, [
    '-n',
    '-N',
    '-M',
    'prepared',
    '-T',
    String(seconds),
    '-c',
    String(clients),
    '-j',
    String(Math.min(clients, 2)),
    target,
  ]);
  const processed = /number of transactions actually processed: (\d+)/.exec(stdout);
  if (processed === null) throw new Error(`pgbench printed no count of transactions:\n${stdout}`);
  return Number(processed[1]);
}
