/**
 * Which database a command works on, and opening it. The path is `--db`,
 * else `AGENTSTATE_DB`, else `.agentstate/state.db` under the working
 * directory. Reading never creates a file: only commands that write do.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Embedder, EventSourcedProvider } from '@agentstate/core';
import { UserError } from './errors.js';
import { openDevStore } from './dev-store.js';

/** The database used when neither `--db` nor `AGENTSTATE_DB` names one. */
export const DEFAULT_DB_PATH = '.agentstate/state.db';

/** The environment variable naming the database. */
export const DB_ENV = 'AGENTSTATE_DB';

/** An opened database: the provider with its durable operations. */
export type Database = EventSourcedProvider & {
  /** Drops and re-derives every projection table from the log. */
  rebuild(): Promise<unknown>;
};

/** How to open a database. */
export interface OpenOptions {
  /** Create the file (and its folder) when missing. Default: refuse. */
  create?: boolean;
  /** Enables semantic and hybrid recall. */
  embedder?: Embedder;
}

/** The database path: `--db`, else `AGENTSTATE_DB`, else the default. */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? (env[DB_ENV] || undefined) ?? DEFAULT_DB_PATH;
  if (chosen.trim() === '') throw new UserError('the database path is empty');
  return resolve(chosen);
}

/** Opens the database at `path`. */
export async function openDatabase(path: string, options: OpenOptions = {}): Promise<Database> {
  if (!existsSync(path)) {
    if (!options.create) {
      throw new UserError(`no agentstate database at ${path} (choose one with --db or ${DB_ENV}; \`agentstate demo --db ${path}\` creates a sample)`);
    }
    mkdirSync(dirname(path), { recursive: true });
  }
  return openDevStore(path, { embedder: options.embedder });
}

/** Runs `fn` on the opened database and closes it afterwards, whatever happens. */
export async function withDatabase<T>(path: string, options: OpenOptions, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(path, options);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}
