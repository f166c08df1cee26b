/** The one resolution of a program's database path (see `defaults.ts`). */
import { resolve } from 'node:path';
import { ValidationError } from '@agentstate/core';
import { DATABASE_ENV, DEFAULT_DATABASE_PATH } from './defaults.js';

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
