/**
 * The defaults every program on this backend shares — the `agentstate`
 * command, `agentstate mcp` and `agentstate-mcp` — decided once here so that
 * they open the same file and recall with the same embedder.
 */
import { resolve } from 'node:path';
import type { Embedder } from '@agentstate/core';
import { ValidationError } from '@agentstate/core';
import { createStaticEmbedder } from '@agentstate/embeddings';

/** The environment variable naming the database file. */
export const DATABASE_ENV = 'AGENTSTATE_DB';

/** The database file used when neither a flag nor {@link DATABASE_ENV} names one, under the working directory. */
export const DEFAULT_DATABASE_PATH = '.agentstate/state.db';

/**
 * The absolute path of the database: `flag` (a `--db` value), else
 * {@link DATABASE_ENV} when set and not empty, else
 * {@link DEFAULT_DATABASE_PATH}, resolved against the working directory. A
 * blank path is a `ValidationError`: it would name the working directory.
 */
export function resolveDatabasePath(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? (env[DATABASE_ENV] || undefined) ?? DEFAULT_DATABASE_PATH;
  if (chosen.trim() === '') throw new ValidationError('database path', `is empty (set by --db or ${DATABASE_ENV})`);
  return resolve(chosen);
}

/**
 * The embedder programs configure when the user names none: the offline
 * static word-vector embedder of `@agentstate/embeddings` (no download, no
 * model server; its table loads on the first embedding). With it, recall
 * with query text is hybrid and best first (docs/contract.md §4). The
 * provider also falls back to it for an explicit semantic or hybrid recall
 * when no embedder was configured.
 */
export function createDefaultEmbedder(): Embedder {
  return createStaticEmbedder();
}
