/**
 * The PostgreSQL server the tests use: the one AGENTSTATE_TEST_POSTGRES_URL
 * names, or the run's throwaway cluster (started once by global-setup.ts).
 * On the run's cluster each test file works in a database of its own,
 * created on first use and dropped after the file, so files running at once
 * see nothing of each other; each test gets a schema of its own.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { NO_SERVER } from './start-cluster.js';

/** A server and how to reach it. */
export interface TestServer {
  url: string;
  stop(): Promise<void>;
}

let started: Promise<TestServer> | undefined;
let schemas = 0;
// Files that share a server by URL may run in the same process one after the other: names carry the file's own tag.
const tag = `${process.pid}_${randomBytes(3).toString('hex')}`;

/** This file's database on the test server, made on first use and dropped after the file. */
export function testServer(): Promise<TestServer> {
  started ??= openServer();
  return started;
}

// Registered when a test file imports this module: a hook registered inside a running test would be ignored.
afterAll(async () => {
  if (started !== undefined) await (await started).stop();
});

/** A schema name no other test of this run uses. */
export function freshSchema(prefix = 't'): string {
  schemas += 1;
  return `${prefix}_${tag}_${schemas}`;
}

/**
 * Drops a schema of {@link freshSchema}'s naming when the test is done with it, unless it lies in this file's own
 * database, which is dropped whole after the file: a DROP SCHEMA per check cost the server about half the CPU of
 * creating the schema, for nothing.
 */
export async function releaseSchema(url: string, schema: string): Promise<void> {
  if (!process.env.AGENTSTATE_TEST_POSTGRES_URL) return;
  await dropSchema(url, schema);
}

/** Drops a schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await query(url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

async function query(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function openServer(): Promise<TestServer> {
  const given = process.env.AGENTSTATE_TEST_POSTGRES_URL;
  if (given) return { url: given, stop: async () => undefined };
  const cluster = inject('postgresCluster');
  if (cluster === undefined) throw new Error(NO_SERVER);
  const database = `f_${tag}`;
  await query(cluster, `CREATE DATABASE ${database}`);
  const url = new URL(cluster);
  url.pathname = `/${database}`;
  // Forced: a client the file left open must not keep its database alive.
  return { url: url.href, stop: () => query(cluster, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) };
}
